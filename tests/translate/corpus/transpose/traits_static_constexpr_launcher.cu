// Tiled transpose configured by a traits struct: `static constexpr` members read in the kernel
// (shared tile size, loop bounds) and in the launch sizes, the traits type a template argument of the
// kernel and of a host launcher.
#include <cuda_runtime.h>
#include <stdint.h>

struct TransposeTraits {
  static constexpr int kTile = 32;
  static constexpr int kBlockRows = 8;
  static constexpr int kPad = 1;
};

template <typename Traits>
__global__ void __launch_bounds__(Traits::kTile * Traits::kBlockRows)
    transpose_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[Traits::kTile][Traits::kTile + Traits::kPad];
  int c = blockIdx.x * Traits::kTile + threadIdx.x;
  int r = blockIdx.y * Traits::kTile + threadIdx.y;
#pragma unroll
  for (int j = 0; j < Traits::kTile; j += Traits::kBlockRows) {
    if (c < cols && r + j < rows) tile[threadIdx.y + j][threadIdx.x] = in[(int64_t)(r + j) * cols + c];
  }
  __syncthreads();
  c = blockIdx.y * Traits::kTile + threadIdx.x;  // output column = input row
  r = blockIdx.x * Traits::kTile + threadIdx.y;  // output row = input column
#pragma unroll
  for (int j = 0; j < Traits::kTile; j += Traits::kBlockRows) {
    if (c < rows && r + j < cols) out[(int64_t)(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
  }
}

template <typename Traits>
void launch_transpose(const float* x, float* y, int rows, int cols, cudaStream_t stream) {
  const dim3 block(Traits::kTile, Traits::kBlockRows);
  const dim3 grid((cols + Traits::kTile - 1) / Traits::kTile, (rows + Traits::kTile - 1) / Traits::kTile);
  transpose_tiled<Traits><<<grid, block, 0, stream>>>(x, y, rows, cols);
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  launch_transpose<TransposeTraits>(x, y, (int)rows, (int)cols, stream);
}
