// Warp-aggregated atomics: lanes with the same bin elect a leader with __ballot_sync / __activemask
// and __ffs, the leader adds __popc of the group into a shared histogram, then one atomicAdd per bin.
#include <cuda_runtime.h>
#include <stdint.h>

#define BINS 64

__global__ void histogram_aggregated(const int* __restrict__ x, int* __restrict__ counts, int n) {
  __shared__ int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  for (int base = blockIdx.x * blockDim.x; base < n; base += blockDim.x * gridDim.x) {
    const int i = base + threadIdx.x;
    const bool valid = i < n;
    const int bin = valid ? ((x[i] % BINS) + BINS) % BINS : -1;
    unsigned pending = __ballot_sync(0xffffffffu, valid);
    while (pending) {
      const int leader = __ffs(pending) - 1;
      const int leader_bin = __shfl_sync(0xffffffffu, bin, leader);
      const unsigned same = __ballot_sync(0xffffffffu, bin == leader_bin && valid);
      if (lane == leader) atomicAdd(&local[leader_bin], __popc(same));
      pending &= ~same;
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&counts[b], local[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemset(counts, 0, BINS * sizeof(int));
  histogram_aggregated<<<4, 128, 0, stream>>>(x, counts, (int)n);
}
