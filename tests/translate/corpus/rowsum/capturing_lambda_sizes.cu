// Launch sizes from lambdas of the entry that capture its variables ([&] and [=]): a block count reading the entry's
// locals (one assigned before the lambda is made), and a condition reading a size.
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
  const int lanes_per_row = 32;
  int64_t row_count = rows;
  if (row_count < 1) row_count = 1;
  const auto blocks_for = [&](int threads) {
    const int64_t rows_per_block = threads / lanes_per_row;
    return unsigned((row_count + rows_per_block - 1) / rows_per_block);
  };
  const auto wide = [=] { return cols >= 256; };
  if (wide())
    rowsum_lanes<256><<<blocks_for(256), 256, 0, stream>>>(x, y, rows, cols);
  else
    rowsum_lanes<64><<<blocks_for(64), 64, 0, stream>>>(x, y, rows, cols);
}
