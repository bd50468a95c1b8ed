// A block reduction helper with its own __shared__ scratch and a template width, called twice
// (mean, then variance); std::max in the kernel, a float4 ref parameter.
#include <cuda_runtime.h>
#include <stdint.h>

template <int THREADS>
__device__ float block_sum(float v) {
  __shared__ float warp_part[THREADS / 32];
  __shared__ float total;
  for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
  if (threadIdx.x % 32 == 0) warp_part[threadIdx.x / 32] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0.f;
    for (int w = 0; w < THREADS / 32; ++w) t += warp_part[w];
    total = t;
  }
  __syncthreads();
  const float r = total;
  __syncthreads();
  return r;
}

__device__ void accumulate(float4& acc, float v) { acc.x += v; acc.y += v * v; }

template <int THREADS>
__global__ void layernorm_k(const float* x, const float* gamma, const float* beta, float* y, int cols, float eps) {
  const float* in = x + (int64_t)blockIdx.x * cols;
  float4 acc = make_float4(0.f, 0.f, 0.f, 0.f);
  for (int c = threadIdx.x; c < cols; c += THREADS) accumulate(acc, in[c]);
  const float mean = block_sum<THREADS>(acc.x) / cols;
  const float var = std::max(block_sum<THREADS>(acc.y) / cols - mean * mean, 0.f);
  const float inv = rsqrtf(var + eps);
  for (int c = threadIdx.x; c < cols; c += THREADS)
    y[(int64_t)blockIdx.x * cols + c] = (in[c] - mean) * inv * gamma[c] + beta[c];
}

extern "C" void layernorm(const float* x, const float* gamma, const float* beta, float* y, int64_t rows, int64_t cols,
                          float eps, cudaStream_t stream) {
  layernorm_k<128><<<rows, 128, 0, stream>>>(x, gamma, beta, y, (int)cols, eps);
}
