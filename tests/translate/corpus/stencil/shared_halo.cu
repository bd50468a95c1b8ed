// The textbook tiled stencil: a (TILE + 2)^2 shared tile with a one-point halo loaded by the edge
// threads, `#define` sizes, the halo's corners never read.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 16
#define RADIUS 1

__global__ void laplace_tiled(const float* __restrict__ in, float* __restrict__ out, int rows, int cols) {
  __shared__ float tile[TILE + 2 * RADIUS][TILE + 2 * RADIUS];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int c = blockIdx.x * TILE + tx, r = blockIdx.y * TILE + ty;
  tile[ty + RADIUS][tx + RADIUS] = (r < rows && c < cols) ? in[r * cols + c] : 0.0f;
  if (tx < RADIUS) {
    tile[ty + RADIUS][tx] = (r < rows && c - RADIUS >= 0) ? in[r * cols + c - RADIUS] : 0.0f;
    tile[ty + RADIUS][tx + TILE + RADIUS] = (r < rows && c + TILE < cols) ? in[r * cols + c + TILE] : 0.0f;
  }
  if (ty < RADIUS) {
    tile[ty][tx + RADIUS] = (r - RADIUS >= 0 && c < cols) ? in[(r - RADIUS) * cols + c] : 0.0f;
    tile[ty + TILE + RADIUS][tx + RADIUS] = (r + TILE < rows && c < cols) ? in[(r + TILE) * cols + c] : 0.0f;
  }
  __syncthreads();
  if (r < rows && c < cols) {
    const int i = ty + RADIUS, j = tx + RADIUS;
    out[r * cols + c] = tile[i - 1][j] + tile[i + 1][j] + tile[i][j - 1] + tile[i][j + 1] - 4.0f * tile[i][j];
  }
}

extern "C" void stencil(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 threads(TILE, TILE);
  const dim3 blocks((unsigned)((cols + TILE - 1) / TILE), (unsigned)((rows + TILE - 1) / TILE));
  laplace_tiled<<<blocks, threads, 0, stream>>>(x, y, (int)rows, (int)cols);
}
