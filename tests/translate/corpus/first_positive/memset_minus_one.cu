// The launcher fills the output with -1 by cudaMemsetAsync(y, 0xFF, ...) (every byte 0xFF: the int -1, "no hit"),
// and the kernel writes only the rows that have a hit: one block per row, the first hit by a shared atomicMin.
#include <climits>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void first_hit_rows(const float* __restrict__ x, int* __restrict__ y, int cols) {
  __shared__ int best;
  if (threadIdx.x == 0) best = INT_MAX;
  __syncthreads();
  const float* row = x + (int64_t)blockIdx.x * cols;
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    if (row[c] > 3.0f) {
      atomicMin(&best, c);
      break;  // later columns of this thread are larger
    }
  __syncthreads();
  if (threadIdx.x == 0 && best != INT_MAX) y[blockIdx.x] = best;
}

extern "C" void first_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaMemsetAsync(y, 0xFF, rows * sizeof(int), stream);
  first_hit_rows<<<(unsigned)rows, 128, 0, stream>>>(x, y, (int)cols);
}
