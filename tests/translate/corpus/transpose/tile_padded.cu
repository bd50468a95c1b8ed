// The classic padded shared tile [32][33] with dim3(32, 8) blocks, each thread moving 4 elements.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int TILE_DIM = 32;
constexpr int BLOCK_ROWS = 8;

__global__ void transpose_tile(const float* x, float* y, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int c = blockIdx.x * TILE_DIM + threadIdx.x;
  int r = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (r + j < rows && c < cols) tile[threadIdx.y + j][threadIdx.x] = x[(r + j) * cols + c];
  __syncthreads();
  c = blockIdx.y * TILE_DIM + threadIdx.x;
  r = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (r + j < cols && c < rows) y[(r + j) * rows + c] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 grid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM);
  transpose_tile<<<grid, dim3(TILE_DIM, BLOCK_ROWS), 0, stream>>>(x, y, rows, cols);
}
