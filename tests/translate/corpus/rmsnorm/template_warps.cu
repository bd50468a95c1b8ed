// A BLOCK_SIZE template kernel instantiated at the launch: per-warp partial sums through shuffles,
// a shared array of warp sums, rsqrtf and __fdividef.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK_SIZE>
__global__ void rmsnorm_warps(const float* __restrict__ x, const float* __restrict__ weight, float* __restrict__ y, int cols,
                              float eps) {
  constexpr int WARPS = BLOCK_SIZE / 32;
  __shared__ float warp_sums[WARPS];
  __shared__ float scale;
  const float* in = x + (size_t)blockIdx.x * cols;
  float sq = 0.f;
  for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) sq += in[c] * in[c];
  for (int o = 16; o; o >>= 1) sq += __shfl_down_sync(0xffffffffu, sq, o);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x >> 5] = sq;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
    for (int w = 0; w < WARPS; ++w) total += warp_sums[w];
    scale = rsqrtf(__fdividef(total, (float)cols) + eps);
  }
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += BLOCK_SIZE) y[(size_t)blockIdx.x * cols + c] = in[c] * scale * weight[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  rmsnorm_warps<128><<<rows, 128, 0, stream>>>(x, weight, y, (int)cols, eps);
}
