// An increment written as an atomicCAS loop (the classic pattern for operations without an atomic).
#include <cuda_runtime.h>
#include <stdint.h>

__device__ int cas_increment(int* address) {
  int old = *address, assumed;
  do {
    assumed = old;
    old = atomicCAS(address, assumed, assumed + 1);
  } while (assumed != old);
  return old;
}

__global__ void hist_cas(const int* x, int* counts, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) cas_increment(&counts[x[i]]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, 64 * sizeof(int), stream);
  hist_cas<<<(n + 127) / 128, 128, 0, stream>>>(x, counts, n);
}
