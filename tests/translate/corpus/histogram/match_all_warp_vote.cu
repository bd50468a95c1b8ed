// histogram: __match_all_sync(mask, v, &pred) lets a warp whose lanes all hold one value add 32 at once; otherwise
// per-lane shared atomics; bins zeroed and flushed by strided loops, __syncthreads between phases.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBins = 64;

__global__ void hist_match_all(const int* __restrict__ x, int* __restrict__ counts, int n) {
  __shared__ int bins[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) bins[b] = 0;
  __syncthreads();
  const int stride = gridDim.x * blockDim.x;
  // every lane of a warp runs the same number of iterations: the bound is rounded up to whole warps' strides
  const int n_round = (n + stride - 1) / stride * stride;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n_round; i += stride) {
    const bool in = i < n;
    const int v = in ? x[i] : -1;
    int all_same = 0;
    __match_all_sync(0xffffffffu, v, &all_same);
    if (all_same) {
      if ((threadIdx.x & 31) == 0 && v >= 0) atomicAdd(&bins[v], 32);
    } else if (in) {
      atomicAdd(&bins[v], 1);
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (bins[b]) atomicAdd(&counts[b], bins[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, kBins * sizeof(int), stream);
  hist_match_all<<<4, 128, 0, stream>>>(x, counts, (int)n);
}
