// histogram: a __shared__ array declared inside the body of an if on blockDim (static storage in a nested block),
// a `__shared__ int` flag, counting with atomicAdd.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void hist_nested_shared(const int* __restrict__ x, int* __restrict__ counts, int n) {
  if (blockDim.x >= 64) {
    __shared__ int local[64];
    for (int b = threadIdx.x; b < 64; b += blockDim.x) local[b] = 0;
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&local[x[i]], 1);
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x)
      if (local[b] != 0) atomicAdd(&counts[b], local[b]);
  } else {
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) atomicAdd(&counts[x[i]], 1);
  }
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, 64 * sizeof(int), stream);
  hist_nested_shared<<<6, 96, 0, stream>>>(x, counts, (int)n);
}
