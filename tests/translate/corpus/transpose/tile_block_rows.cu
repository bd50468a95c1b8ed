// The classic transpose: 32 x 8 threads move a 32 x 32 tile (TILE_DIM, BLOCK_ROWS), padded shared
// memory, loops over threadIdx.y + j, a dim3 grid from integer divisions rounded up.
#include <cuda_runtime.h>
#include <stdint.h>

const int TILE_DIM = 32;
const int BLOCK_ROWS = 8;

__global__ void transpose_tiles(const float* __restrict__ idata, float* __restrict__ odata, int rows, int cols) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];
  int x = blockIdx.x * TILE_DIM + threadIdx.x;
  int y = blockIdx.y * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < cols && y + j < rows) tile[threadIdx.y + j][threadIdx.x] = idata[(y + j) * cols + x];
  __syncthreads();
  x = blockIdx.y * TILE_DIM + threadIdx.x;
  y = blockIdx.x * TILE_DIM + threadIdx.y;
  for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS)
    if (x < rows && y + j < cols) odata[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 dimGrid((cols + TILE_DIM - 1) / TILE_DIM, (rows + TILE_DIM - 1) / TILE_DIM, 1);
  dim3 dimBlock(TILE_DIM, BLOCK_ROWS, 1);
  transpose_tiles<<<dimGrid, dimBlock, 0, stream>>>(x, y, (int)rows, (int)cols);
}
