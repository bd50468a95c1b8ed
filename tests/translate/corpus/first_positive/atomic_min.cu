// atomicMin on shared memory: every thread proposes its first hit, the smallest wins.
#include <cuda_runtime.h>
#include <stdint.h>
#include <limits.h>

__global__ void first_atomic_min(const float* x, int* y, int cols) {
  __shared__ int first;
  if (threadIdx.x == 0) first = INT_MAX;
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    if (x[(int64_t)blockIdx.x * cols + c] > 3.0f) {
      atomicMin(&first, c);
      break;
    }
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = first == INT_MAX ? -1 : first;
}

extern "C" void first_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_atomic_min<<<rows, 64, 0, stream>>>(x, y, cols);
}
