// One warp per row, four rows per block: full-warp __shfl_xor_sync max and sum, __expf, __fdividef,
// fmaxf and -INFINITY, #pragma unroll over the butterfly, __restrict__ pointers.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

#define FULL_MASK 0xffffffffu
constexpr int kRowsPerBlock = 4;

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(FULL_MASK, v, o));
  return v;
}

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(FULL_MASK, v, o);
  return v;
}

__global__ void softmax_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * kRowsPerBlock + threadIdx.x / warpSize;
  const int lane = threadIdx.x & (warpSize - 1);
  if (row >= rows) return;
  const float* in = x + (int64_t)row * cols;
  float* out = y + (int64_t)row * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += warpSize) m = fmaxf(m, in[c]);
  m = warp_max(m);
  float s = 0.f;
  for (int c = lane; c < cols; c += warpSize) s += __expf(in[c] - m);
  s = warp_sum(s);
  for (int c = lane; c < cols; c += warpSize) out[c] = __fdividef(__expf(in[c] - m), s);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int blocks = (int)((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  softmax_rows<<<blocks, 32 * kRowsPerBlock, 0, stream>>>(x, y, (int)rows, (int)cols);
}
