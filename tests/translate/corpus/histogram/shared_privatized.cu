// A shared-memory histogram per block (atomicAdd on shared ints), merged with global atomics.
#include <cuda_runtime.h>
#include <stdint.h>

#define BINS 64

__global__ void hist_shared(const int* __restrict__ x, unsigned int* counts, int n) {
  __shared__ unsigned int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) atomicAdd(&local[x[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x)
    if (local[b]) atomicAdd(counts + b, local[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, BINS * sizeof(int), stream);
  hist_shared<<<3, 128, 0, stream>>>(x, (unsigned int*)counts, n);
}
