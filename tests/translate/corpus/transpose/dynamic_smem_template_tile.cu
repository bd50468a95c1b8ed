// transpose: a TILE x (TILE + 1) padded tile in extern __shared__ memory whose size a constexpr function template
// gives at the launch, TILE x ROWS threads each moving TILE / ROWS elements, __ldg loads.
#include <cuda_runtime.h>
#include <stdint.h>

template <int TILE>
constexpr size_t tile_bytes() {
  return sizeof(float) * TILE * (TILE + 1);
}

template <int TILE, int ROWS>
__global__ void transpose_tile(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  extern __shared__ float tile[];  // TILE rows of TILE + 1 (padding against bank conflicts)
  constexpr int kStride = TILE + 1;
  int c = blockIdx.x * TILE + threadIdx.x;
  int r = blockIdx.y * TILE + threadIdx.y;
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (c < cols && r + j < rows) tile[(threadIdx.y + j) * kStride + threadIdx.x] = __ldg(&x[(size_t)(r + j) * cols + c]);
  __syncthreads();
  c = blockIdx.y * TILE + threadIdx.x;  // output column = input row
  r = blockIdx.x * TILE + threadIdx.y;  // output row = input column
#pragma unroll
  for (int j = 0; j < TILE; j += ROWS)
    if (c < rows && r + j < cols) y[(size_t)(r + j) * rows + c] = tile[threadIdx.x * kStride + threadIdx.y + j];
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kTile = 32, kRows = 8;
  const dim3 grid((unsigned)((cols + kTile - 1) / kTile), (unsigned)((rows + kTile - 1) / kTile));
  transpose_tile<kTile, kRows><<<grid, dim3(kTile, kRows), tile_bytes<kTile>(), stream>>>(x, y, (int)rows, (int)cols);
}
