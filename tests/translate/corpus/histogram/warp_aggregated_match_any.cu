// Warp-aggregated atomics: lanes holding the same bin elect a leader with __match_any_sync, which adds
// the group's __popc count; shared bins, then a global atomicAdd per bin.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBins = 64;

__global__ void histogram_aggregated(const int* __restrict__ x, int* __restrict__ counts, int n) {
  __shared__ int bins[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  for (int base = blockIdx.x * blockDim.x; base < n; base += blockDim.x * gridDim.x) {
    const int i = base + threadIdx.x;
    const bool valid = i < n;
    const int bin = valid ? __ldg(x + i) : -1;
    const unsigned peers = __match_any_sync(0xffffffffu, bin);
    const int leader = __ffs(peers) - 1;
    if (valid && lane == leader) atomicAdd(&bins[bin], __popc(peers));
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (bins[b]) atomicAdd(&counts[b], bins[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, kBins * sizeof(int), stream);
  const int threads = 256;
  int blocks = (int)((n + threads - 1) / threads);
  blocks = blocks > 8 ? 8 : blocks;
  histogram_aggregated<<<blocks, threads, 0, stream>>>(x, counts, (int)n);
}
