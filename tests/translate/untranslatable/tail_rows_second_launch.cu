// Untranslatable: a kernel over pairs of rows, then a second launch for the odd last row writing another part of y
// (line 26); MLX kernels write fresh output arrays, so the second would drop the first's rows: one launch must
// cover the remainder too.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_pairs(const float* x, float* y, int cols) {
  const int row = 2 * blockIdx.x + threadIdx.x / 32;
  float s = 0.f;
  for (int c = threadIdx.x % 32; c < cols; c += 32) s += x[(size_t)row * cols + c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) y[row] = s;
}

__global__ void rowsum_last(const float* x, float* y, int row, int cols) {
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += 32) s += x[(size_t)row * cols + c];
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x == 0) y[row] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int pairs = (int)(rows / 2);
  if (pairs > 0) rowsum_pairs<<<pairs, 64, 0, stream>>>(x, y, (int)cols);
  if (rows % 2)
    rowsum_last<<<1, 32, 0, stream>>>(x, y, (int)rows - 1, (int)cols);
}
