// #define constants and an index macro, a 16x16 tile padded by one column, square 2-D blocks.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 16
#define AT(r, c, ld) ((r) * (ld) + (c))

__global__ void transpose16(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int tx = threadIdx.x, ty = threadIdx.y;
  int r = blockIdx.y * TILE + ty, c = blockIdx.x * TILE + tx;
  if (r < rows && c < cols) tile[ty][tx] = in[AT(r, c, cols)];
  __syncthreads();
  r = blockIdx.x * TILE + ty;  // a row of the output: a column of the input
  c = blockIdx.y * TILE + tx;
  if (r < cols && c < rows) out[AT(r, c, rows)] = tile[tx][ty];
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 block(TILE, TILE);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose16<<<grid, block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
