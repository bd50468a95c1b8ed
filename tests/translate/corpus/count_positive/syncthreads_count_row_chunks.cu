// __syncthreads_count: a block barrier that also counts the threads whose predicate holds; one block
// per row walks the row in blockDim.x chunks.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_rows_barrier(const float* __restrict__ x, int* __restrict__ y, int cols) {
  const float* row = x + (size_t)blockIdx.x * cols;
  int total = 0;
  for (int base = 0; base < cols; base += blockDim.x) {
    const int c = base + threadIdx.x;
    total += __syncthreads_count(c < cols && row[c] > 0.f);
  }
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_rows_barrier<<<(unsigned)rows, 160, 0, stream>>>(x, y, (int)cols);
}
