// Integer atomicAdd on shared memory, then one write per block.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_atomic(const float* x, int* y, int cols) {
  __shared__ int count;
  if (threadIdx.x == 0) count = 0;
  __syncthreads();
  int mine = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) mine += x[(int64_t)blockIdx.x * cols + c] > 0.0f ? 1 : 0;
  atomicAdd(&count, mine);
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = count;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_atomic<<<rows, 128, 0, stream>>>(x, y, cols);
}
