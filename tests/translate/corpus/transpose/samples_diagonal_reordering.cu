// CUDA samples' transposeDiagonal: the blocks renumbered along diagonals to avoid partition camping
// (bid = blockIdx.x + gridDim.x * blockIdx.y; blockIdx_y = bid % gridDim.y;
// blockIdx_x = ((bid / gridDim.y) + blockIdx_y) % gridDim.x, a bijection for rectangular grids),
// a TILE_DIM x (TILE_DIM + 1) padded __shared__ tile filled by BLOCK_ROWS rows of threads in steps,
// bounds checks for sizes that are not multiples of the tile, __ldg reads, int index math.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE_DIM 32
#define BLOCK_ROWS 8

__global__ void transposeDiagonal(float* __restrict__ odata, const float* __restrict__ idata, int width, int height) {
  __shared__ float tile[TILE_DIM][TILE_DIM + 1];

  int blockIdx_x, blockIdx_y;
  // diagonal reordering for a rectangular grid
  {
    const int bid = blockIdx.x + gridDim.x * blockIdx.y;
    blockIdx_y = bid % gridDim.y;
    blockIdx_x = ((bid / gridDim.y) + blockIdx_y) % gridDim.x;
  }

  // from here on the code is the same as the padded tile kernel, with blockIdx_x / blockIdx_y
  int xIndex = blockIdx_x * TILE_DIM + threadIdx.x;
  int yIndex = blockIdx_y * TILE_DIM + threadIdx.y;
  const int index_in = xIndex + yIndex * width;

  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    if (xIndex < width && yIndex + i < height) tile[threadIdx.y + i][threadIdx.x] = __ldg(&idata[index_in + i * width]);
  }

  __syncthreads();

  xIndex = blockIdx_y * TILE_DIM + threadIdx.x;
  yIndex = blockIdx_x * TILE_DIM + threadIdx.y;
  const int index_out = xIndex + yIndex * height;

  for (int i = 0; i < TILE_DIM; i += BLOCK_ROWS) {
    if (xIndex < height && yIndex + i < width) odata[index_out + i * height] = tile[threadIdx.x][threadIdx.y + i];
  }
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int size_x = (int)cols, size_y = (int)rows;  // x is height (rows) x width (cols)
  dim3 grid((size_x + TILE_DIM - 1) / TILE_DIM, (size_y + TILE_DIM - 1) / TILE_DIM), threads(TILE_DIM, BLOCK_ROWS);
  transposeDiagonal<<<grid, threads, 0, stream>>>(y, x, size_x, size_y);
}
