// Warp-aggregated atomics by __match_any_sync: the lanes holding the same bin elect their lowest lane, which adds the
// group's size to the block's shared bins; where __match_all_sync finds the whole warp in one bin, lane 0 adds 32.
#include <cuda_runtime.h>
#include <stdint.h>

#define BINS 64

__global__ void histogram_match(const int* __restrict__ x, int* __restrict__ counts, int n) {
  __shared__ int local[BINS];
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int lane = threadIdx.x % 32;
  for (int base = blockIdx.x * blockDim.x; base < n; base += blockDim.x * gridDim.x) {
    const int i = base + threadIdx.x;
    const bool valid = i < n;
    const int bin = valid ? ((x[i] % BINS) + BINS) % BINS : -1;
    int uniform = 0;
    __match_all_sync(0xffffffffu, bin, &uniform);
    if (uniform) {
      if (lane == 0 && valid) atomicAdd(&local[bin], 32);
    } else {
      const unsigned peers = __match_any_sync(0xffffffffu, bin);
      if (valid && lane == __ffs(peers) - 1) atomicAdd(&local[bin], __popc(peers));
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < BINS; b += blockDim.x) atomicAdd(&counts[b], local[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, BINS * sizeof(int), stream);
  histogram_match<<<3, 128, 0, stream>>>(x, counts, (int)n);
}
