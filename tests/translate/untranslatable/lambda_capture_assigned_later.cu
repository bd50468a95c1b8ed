// Untranslatable: a lambda of the entry used in a launch size (line 24) reads a local that the entry assigns after making
// the lambda: by reference the call reads the new value, by copy the old one.
#include <cuda_runtime.h>
#include <cstdint>

template <int BLOCK>
__global__ void rowsum_lanes(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  constexpr int kRowsPerBlock = BLOCK / 32;
  const int64_t r = int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / 32;
  if (r >= rows) return;
  float s = 0.0f;
  for (int64_t c = threadIdx.x % 32; c < cols; c += 32) s += x[r * cols + c];
  for (int o = 16; o > 0; o /= 2) s += __shfl_xor_sync(0xffffffffu, s, o);
  if (threadIdx.x % 32 == 0) y[r] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  int64_t rows_per_block_of = 16;
  if (cols > 0) rows_per_block_of = 32;
  const auto blocks_for = [&](int threads) { return unsigned((rows + threads / rows_per_block_of - 1) / (threads / rows_per_block_of)); };
  const auto wide = [=] { return cols >= 256; };
  rows_per_block_of = 32;
  if (wide())
    rowsum_lanes<256><<<blocks_for(256), 256, 0, stream>>>(x, y, rows, cols);
  else
    rowsum_lanes<64><<<blocks_for(64), 64, 0, stream>>>(x, y, rows, cols);
}
