// A block per row: each thread stops at its first element over 3 and atomicMin's its column into a
// shared int initialised to INT_MAX (<climits>), a break inside the strided loop.
#include <cuda_runtime.h>
#include <stdint.h>
#include <climits>

__global__ void first_positive_k(const float* __restrict__ x, int* __restrict__ y, int cols) {
  __shared__ int best;
  if (threadIdx.x == 0) best = INT_MAX;
  __syncthreads();
  for (int c = threadIdx.x; c < cols; c += blockDim.x)
    if (x[(size_t)blockIdx.x * cols + c] > 3.f) {
      atomicMin(&best, c);
      break;
    }
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = best == INT_MAX ? -1 : best;
}

extern "C" void first_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_positive_k<<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
