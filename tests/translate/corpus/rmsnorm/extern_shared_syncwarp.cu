// A block per row: per-warp partial sums of squares in dynamic shared memory sized at launch
// ((threads / 32) floats), __syncwarp between the warp's steps, rsqrtf, blockDim-dependent loops.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rmsnorm_block(const float* __restrict__ x, const float* __restrict__ weight, float* __restrict__ y,
                              int cols, float eps) {
  extern __shared__ float warp_sums[];
  const float* in = x + (size_t)blockIdx.x * cols;
  float* out = y + (size_t)blockIdx.x * cols;
  float ss = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) ss += in[c] * in[c];
  for (int o = 16; o > 0; o /= 2) {
    ss += __shfl_down_sync(0xffffffff, ss, o);
    __syncwarp();
  }
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
  if (lane == 0) warp_sums[warp] = ss;
  __syncthreads();
  if (warp == 0) {
    float t = lane < warps ? warp_sums[lane] : 0.f;
    for (int o = 16; o > 0; o /= 2) t += __shfl_down_sync(0xffffffff, t, o);
    if (lane == 0) warp_sums[0] = rsqrtf(t / cols + eps);
  }
  __syncthreads();
  const float scale = warp_sums[0];
  for (int c = threadIdx.x; c < cols; c += blockDim.x) out[c] = in[c] * scale * weight[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  const int threads = cols >= 512 ? 256 : 128;
  rmsnorm_block<<<rows, threads, (threads / 32) * sizeof(float), stream>>>(x, weight, y, (int)cols, eps);
}
