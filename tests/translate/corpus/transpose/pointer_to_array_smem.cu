// transpose: dynamic shared memory viewed as a 2-D tile through a pointer to arrays
// (float (*tile)[kTile + 1] = reinterpret_cast<float (*)[kTile + 1]>(smem)), a 32 x 8 block.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kTile = 32;
constexpr int kRows = 8;

__global__ void transpose_2d_view(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  extern __shared__ float smem[];
  float(*tile)[kTile + 1] = reinterpret_cast<float(*)[kTile + 1]>(smem);
  const int bx = blockIdx.x * kTile, by = blockIdx.y * kTile;
  for (int j = threadIdx.y; j < kTile; j += kRows) {
    const int r = by + j, c = bx + threadIdx.x;
    if (r < rows && c < cols) tile[j][threadIdx.x] = x[(size_t)r * cols + c];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < kTile; j += kRows) {
    const int r = bx + j, c = by + threadIdx.x;  // y is cols x rows
    if (r < cols && c < rows) y[(size_t)r * rows + c] = tile[threadIdx.x][j];
  }
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 grid((unsigned)((cols + kTile - 1) / kTile), (unsigned)((rows + kTile - 1) / kTile));
  transpose_2d_view<<<grid, dim3(kTile, kRows), kTile * (kTile + 1) * sizeof(float), stream>>>(x, y, (int)rows, (int)cols);
}
