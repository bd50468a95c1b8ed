// Tiled transpose whose kernel and __device__ helpers take typedef'd pointers, with a typedef'd pointer local
// declared before it is assigned.
#include <cuda_runtime.h>
#include <stdint.h>

typedef float* float_ptr;
typedef const float* const_float_ptr;
constexpr int TILE = 32;
constexpr int ROWS = 8;

__device__ inline float load_or_zero(const_float_ptr src, int r, int c, int rows, int cols) {
  return (r < rows && c < cols) ? src[(size_t)r * cols + c] : 0.f;
}

__device__ inline void store_if(float_ptr dst, int r, int c, int rows, int cols, float v) {
  if (r < rows && c < cols) dst[(size_t)r * cols + c] = v;
}

__global__ void transpose_tiled(const_float_ptr in, float_ptr out, int rows, int cols) {
  __shared__ float tile[TILE][TILE + 1];
  const int bx = blockIdx.x * TILE, by = blockIdx.y * TILE;
  for (int j = 0; j < TILE; j += ROWS)
    tile[threadIdx.y + j][threadIdx.x] = load_or_zero(in, by + threadIdx.y + j, bx + threadIdx.x, rows, cols);
  __syncthreads();
  float_ptr dst;
  dst = out;
  for (int j = 0; j < TILE; j += ROWS)
    store_if(dst, bx + threadIdx.y + j, by + threadIdx.x, cols, rows, tile[threadIdx.x][threadIdx.y + j]);
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 block(TILE, ROWS);
  dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose_tiled<<<grid, block, 0, stream>>>(x, y, rows, cols);
}
