// Multi-kernel partial sums: a 2-D grid of blocks each sums a 256-column chunk of a row into a
// scratch buffer of per-chunk sums, then one thread per row adds its chunks.
#include <cuda_runtime.h>
#include <stdint.h>

#define CHUNK 256

__global__ void chunk_sums(const float* x, float* partial, int cols, int chunks) {
  __shared__ float buf[CHUNK];
  const int row = blockIdx.y, c = blockIdx.x * CHUNK + threadIdx.x;
  buf[threadIdx.x] = c < cols ? x[(int64_t)row * cols + c] : 0.0f;
  __syncthreads();
#pragma unroll
  for (int s = CHUNK / 2; s > 0; s >>= 1) {
    if (threadIdx.x < s) buf[threadIdx.x] += buf[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) partial[row * chunks + blockIdx.x] = buf[0];
}

__global__ void add_chunks(const float* partial, float* y, int rows, int chunks) {
  const int row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= rows) return;
  float s = 0.0f;
  for (int k = 0; k < chunks; ++k) s += partial[row * chunks + k];
  y[row] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int chunks = (cols + CHUNK - 1) / CHUNK;
  float* partial;
  cudaMallocAsync(&partial, rows * chunks * sizeof(float), stream);
  chunk_sums<<<dim3(chunks, rows), CHUNK, 0, stream>>>(x, partial, cols, chunks);
  add_chunks<<<(rows + 63) / 64, 64, 0, stream>>>(partial, y, rows, chunks);
  cudaFreeAsync(partial, stream);
}
