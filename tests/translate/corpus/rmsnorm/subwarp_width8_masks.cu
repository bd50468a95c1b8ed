// rmsnorm: 8 lanes per row (4 rows per warp), each 8-lane group reducing with __shfl_xor_sync over its own
// mask (0xFF << 8 * group) and width 8, __ldg loads, #pragma unroll 4, __frsqrt_rn.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kLanesPerRow = 8;
constexpr int kThreads = 256;

template <int LANES>
static __device__ __forceinline__ float group_sum(float v, unsigned mask) {
#pragma unroll
  for (int o = LANES / 2; o > 0; o >>= 1) v += __shfl_xor_sync(mask, v, o, LANES);
  return v;
}

__global__ void __launch_bounds__(kThreads) rmsnorm_subwarp(const float* __restrict__ x, const float* __restrict__ weight,
                                                           float* __restrict__ y, int rows, int cols, float eps) {
  const int lane = threadIdx.x & 31;
  const int group = lane / kLanesPerRow;
  const int sublane = lane % kLanesPerRow;
  const unsigned mask = 0xFFu << (group * kLanesPerRow);
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / kLanesPerRow;
  const bool valid = row < rows;
  const float* xr = x + (size_t)row * cols;
  float ss = 0.f;
  if (valid) {
#pragma unroll 4
    for (int c = sublane; c < cols; c += kLanesPerRow) {
      const float v = __ldg(xr + c);
      ss = fmaf(v, v, ss);
    }
  }
  ss = group_sum<kLanesPerRow>(ss, mask);
  const float scale = __frsqrt_rn(ss / cols + eps);
  if (!valid) return;
  float* yr = y + (size_t)row * cols;
#pragma unroll 4
  for (int c = sublane; c < cols; c += kLanesPerRow) yr[c] = __ldg(xr + c) * scale * __ldg(weight + c);
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps,
                        cudaStream_t stream) {
  constexpr int kRowsPerBlock = kThreads / kLanesPerRow;
  const int blocks = (int)((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  rmsnorm_subwarp<<<blocks, kThreads, 0, stream>>>(x, weight, y, (int)rows, (int)cols, eps);
}
