// Multi-kernel, three launches: row maxima, then sums of exponentials (warp per row, shuffles), then
// the normalization over a 2-D grid; two cudaMalloc'd intermediates.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void row_max(const float* x, float* maxima, int rows, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, x[(int64_t)row * cols + c]);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffff, m, o));
  if (threadIdx.x == 0) maxima[row] = m;
}

__global__ void row_sum_exp(const float* x, const float* maxima, float* sums, int rows, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += 32) s += __expf(x[(int64_t)row * cols + c] - maxima[row]);
  for (int o = 16; o > 0; o >>= 1) s += __shfl_down_sync(0xffffffff, s, o);
  if (threadIdx.x == 0) sums[row] = s;
}

__global__ void scale(const float* x, const float* maxima, const float* sums, float* y, int rows, int cols) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x, row = blockIdx.y;
  if (c < cols) y[(int64_t)row * cols + c] = __fdividef(__expf(x[(int64_t)row * cols + c] - maxima[row]), sums[row]);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int rows_per_block = 4;
  float *maxima, *sums;
  cudaMalloc(&maxima, rows * sizeof(float));
  cudaMalloc(&sums, rows * sizeof(float));
  const dim3 warps(32, rows_per_block);
  const int blocks = (rows + rows_per_block - 1) / rows_per_block;
  row_max<<<blocks, warps, 0, stream>>>(x, maxima, rows, cols);
  row_sum_exp<<<blocks, warps, 0, stream>>>(x, maxima, sums, rows, cols);
  scale<<<dim3((cols + 255) / 256, rows), 256, 0, stream>>>(x, maxima, sums, y, rows, cols);
  cudaFree(maxima);
  cudaFree(sums);
}
