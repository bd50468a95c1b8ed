// A tiled transpose with a `[=]` lambda loading through a captured pointer (copied), and lambdas writing and reading
// a 2-D __shared__ tile (`float tile[32][33]`, a threadgroup array reference member) with bounds checks.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 32

__global__ void transpose_lambda_tile(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
  auto load = [=](int r, int c) { return r < rows && c < cols ? x[(size_t)r * cols + c] : 0.f; };
  auto stage = [&](int ty) { tile[ty][threadIdx.x] = load(by + ty, bx + threadIdx.x); };
  for (int ty = threadIdx.y; ty < TILE; ty += blockDim.y) stage(ty);
  __syncthreads();
  auto store = [&, rows](int ty) {
    const int r = bx + ty, c = by + threadIdx.x;
    if (r < cols && c < rows) y[(size_t)r * rows + c] = tile[threadIdx.x][ty];
  };
  for (int ty = threadIdx.y; ty < TILE; ty += blockDim.y) store(ty);
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 block(TILE, 8);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose_lambda_tile<<<grid, block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
