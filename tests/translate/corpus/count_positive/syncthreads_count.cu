// A block per row counts its positive entries with __syncthreads_count, chunk by chunk, inside a
// __device__ helper; 80 threads (three SIMD groups, the last one half full); __syncthreads_and
// stops early once every thread has run past the row.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ int count_chunk(const float* row, int c, int cols) {
  return __syncthreads_count(c < cols && row[c] > 0.0f);
}

__global__ void count_rows_vote(const float* __restrict__ x, int* __restrict__ y, int cols) {
  const float* row = x + (int64_t)blockIdx.x * cols;
  int total = 0;
  for (int base = 0;; base += blockDim.x) {
    const int c = base + threadIdx.x;
    total += count_chunk(row, c, cols);
    if (__syncthreads_and(c + (int)blockDim.x >= cols)) break;
  }
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_rows_vote<<<rows, 80, 0, stream>>>(x, y, (int)cols);
}
