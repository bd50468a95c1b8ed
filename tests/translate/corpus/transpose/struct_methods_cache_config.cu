// A shape struct passed by value with __host__ __device__ methods (in_index/out_index, tiles_x), a
// 32x33 padded tile, __stcs streaming stores, cudaFuncSetCacheConfig and cudaFuncSetAttribute before
// the launch, an error-check macro around cudaGetLastError.
#include <cuda_runtime.h>
#include <stdint.h>
#include <cstdio>

#define CUDA_CHECK(expr)                                                              \
  do {                                                                                \
    cudaError_t err__ = (expr);                                                       \
    if (err__ != cudaSuccess) fprintf(stderr, "CUDA error %s\n", cudaGetErrorString(err__)); \
  } while (0)

constexpr int TILE = 32, ROWS = 8;

struct Shape2D {
  int rows, cols;
  __host__ __device__ int tiles_x() const { return (cols + TILE - 1) / TILE; }
  __host__ __device__ int tiles_y() const { return (rows + TILE - 1) / TILE; }
  __host__ __device__ size_t in_index(int r, int c) const { return (size_t)r * cols + c; }
  __host__ __device__ size_t out_index(int r, int c) const { return (size_t)c * rows + r; }
};

__global__ void transpose_tiles(const float* __restrict__ x, float* __restrict__ y, Shape2D s) {
  __shared__ float tile[TILE][TILE + 1];
  const int c0 = blockIdx.x * TILE, r0 = blockIdx.y * TILE;
  for (int dy = threadIdx.y; dy < TILE; dy += ROWS) {
    const int r = r0 + dy, c = c0 + threadIdx.x;
    if (r < s.rows && c < s.cols) tile[dy][threadIdx.x] = x[s.in_index(r, c)];
  }
  __syncthreads();
  for (int dy = threadIdx.y; dy < TILE; dy += ROWS) {
    const int c = c0 + dy, r = r0 + threadIdx.x;
    if (r < s.rows && c < s.cols) __stcs(&y[s.out_index(r, c)], tile[threadIdx.x][dy]);
  }
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const Shape2D s{(int)rows, (int)cols};
  CUDA_CHECK(cudaFuncSetCacheConfig(transpose_tiles, cudaFuncCachePreferShared));
  CUDA_CHECK(cudaFuncSetAttribute(transpose_tiles, cudaFuncAttributePreferredSharedMemoryCarveout, 100));
  transpose_tiles<<<dim3(s.tiles_x(), s.tiles_y()), dim3(TILE, ROWS), 0, stream>>>(x, y, s);
  CUDA_CHECK(cudaGetLastError());
}
