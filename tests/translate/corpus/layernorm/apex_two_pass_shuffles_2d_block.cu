// A 32 x 4 block per row (threadIdx.y the warp), a float2 (sum, sum of squares) reduced with
// __shfl_down_sync on each member, then across warps through shared memory, __frcp_rn for 1 / cols.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float2 warp_reduce_pair(float2 v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    v.x += __shfl_down_sync(0xffffffffu, v.x, o);
    v.y += __shfl_down_sync(0xffffffffu, v.y, o);
  }
  return v;
}

__global__ void layernorm_2d(const float* __restrict__ x, const float* __restrict__ gamma, const float* __restrict__ beta,
                             float* __restrict__ y, int cols, float eps) {
  __shared__ float2 part[4];
  __shared__ float2 stats;
  const int tid = threadIdx.y * blockDim.x + threadIdx.x;
  const int nthreads = blockDim.x * blockDim.y;
  const float* in = x + (size_t)blockIdx.x * cols;
  float2 acc = make_float2(0.f, 0.f);
  for (int c = tid; c < cols; c += nthreads) {
    const float v = __ldg(in + c);
    acc.x += v;
    acc.y = fmaf(v, v, acc.y);
  }
  acc = warp_reduce_pair(acc);
  if (threadIdx.x == 0) part[threadIdx.y] = acc;
  __syncthreads();
  if (tid == 0) {
    float2 t = part[0];
    for (int w = 1; w < blockDim.y; ++w) {
      t.x += part[w].x;
      t.y += part[w].y;
    }
    const float inv_n = __frcp_rn((float)cols);
    const float mean = t.x * inv_n;
    stats = make_float2(mean, rsqrtf(fmaxf(t.y * inv_n - mean * mean, 0.f) + eps));
  }
  __syncthreads();
  for (int c = tid; c < cols; c += nthreads)
    y[(size_t)blockIdx.x * cols + c] = (in[c] - stats.x) * stats.y * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  const dim3 block(32, 4);
  layernorm_2d<<<(unsigned)rows, block, 0, stream>>>(x, gamma, beta, y, (int)cols, eps);
}
