// Untranslatable: a 128-bit integer in device code (line 7), a wide product hashing the row into a weight.
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_hashed_rowsum(const float* x, float* y, int cols) {
  float s = 0;
  for (int c = 0; c < cols; ++c) s += x[blockIdx.x * cols + c];
  const __uint128_t wide = __uint128_t(blockIdx.x + 1) * 0x9E3779B97F4A7C15ull;
  y[blockIdx.x] = s * float(uint64_t(wide >> 64) >> 40) * 0x1p-24f;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_hashed_rowsum<<<rows, 1, 0, stream>>>(x, y, (int)cols);
}
