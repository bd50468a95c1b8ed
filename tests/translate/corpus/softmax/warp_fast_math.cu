// One warp per row: __shfl_xor_sync max and sum, __expf and __fdividef.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void softmax_warp(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * 2 + threadIdx.y;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, xr[c]);
  for (int o = 16; o; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += 32) s += __expf(xr[c] - m);
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffff, s, o);
  for (int c = threadIdx.x; c < cols; c += 32) yr[c] = __fdividef(__expf(xr[c] - m), s);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_warp<<<(rows + 1) / 2, dim3(32, 2), 0, stream>>>(x, y, rows, cols);
}
