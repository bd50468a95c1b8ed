// C-style parameters: `typedef struct { ... } TransposeParams;` filled field by field, the dims
// conditionally rounded in an if, a 32x8 block walking a 32x32 tile through padded shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 32
#define ROWS_PER_PASS 8

typedef struct {
  const float* src;
  float* dst;
  int rows;
  int cols;
  int tiles_x;
} TransposeParams;

__global__ void transpose_tiles(TransposeParams p) {
  __shared__ float tile[TILE][TILE + 1];
  const int tx = blockIdx.x % p.tiles_x, ty = blockIdx.x / p.tiles_x;
  const int c0 = tx * TILE, r0 = ty * TILE;
  for (int j = threadIdx.y; j < TILE; j += ROWS_PER_PASS) {
    const int r = r0 + j, c = c0 + threadIdx.x;
    if (r < p.rows && c < p.cols) tile[j][threadIdx.x] = p.src[(int64_t)r * p.cols + c];
  }
  __syncthreads();
  for (int j = threadIdx.y; j < TILE; j += ROWS_PER_PASS) {
    const int c = c0 + j, r = r0 + threadIdx.x;
    if (r < p.rows && c < p.cols) p.dst[(int64_t)c * p.rows + r] = tile[threadIdx.x][j];
  }
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  TransposeParams p;
  p.src = x;
  p.dst = y;
  p.rows = (int)rows;
  p.cols = (int)cols;
  p.tiles_x = (p.cols + TILE - 1) / TILE;
  int tiles_y = (int)((rows + TILE - 1) / TILE);
  if (tiles_y < 1) tiles_y = 1;
  transpose_tiles<<<p.tiles_x * tiles_y, dim3(TILE, ROWS_PER_PASS), 0, stream>>>(p);
}
