// Two rows per warp: each half-warp (16 lanes) sums a row with __shfl_xor_sync of width 16, then
// the segment's first lane is broadcast with __shfl_sync(..., width) and checked by __shfl_down_sync(..., 16).
#include <cuda_runtime.h>
#include <stdint.h>

#define HALF 16

__global__ void rowsum_half_warps(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int lane = threadIdx.x & 31;
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / HALF;
  const int sub = lane % HALF;
  float s = 0.f;
  if (row < rows)
    for (int c = sub; c < cols; c += HALF) s += x[(size_t)row * cols + c];
  for (int off = HALF / 2; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off, HALF);
  // every lane of the segment holds the sum; lane 3 of the segment's value, read by all of it
  const float from3 = __shfl_sync(0xffffffffu, s, 3, HALF);
  // a tree with shfl_down inside the segment gives the same sum in the segment's first lane
  float t = (row < rows) ? s / HALF : 0.f;
  for (int off = HALF / 2; off > 0; off >>= 1) t += __shfl_down_sync(0xffffffffu, t, off, HALF);
  if (row < rows && sub == 0) y[row] = 0.5f * (from3 + t);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;
  const int blocks = (rows * HALF + threads - 1) / threads;
  rowsum_half_warps<<<blocks, threads, 0, stream>>>(x, y, rows, cols);
}
