// Untranslatable: a 128-bit integer in device code (line 13); a host helper before it also names the type but is
// never called, so the port drops it: the report names the kernel's use.
#include <cuda_runtime.h>
#include <stdint.h>
static uint64_t unused_magic(uint64_t d) {
  return uint64_t(((unsigned __int128)1 << 64) / d + 1);
}

__global__ void k_hashed_rowsum(const float* x, float* y, int cols) {
  float s = 0;
  for (int c = 0; c < cols; ++c) s += x[blockIdx.x * cols + c];
  const uint64_t h =
      uint64_t((__uint128_t(blockIdx.x + 1) * 0x9E3779B97F4A7C15ull) >> 64);
  y[blockIdx.x] = s * float(h >> 40) * 0x1p-24f;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_hashed_rowsum<<<rows, 1, 0, stream>>>(x, y, (int)cols);
}
