// A privatized histogram: bins in __shared__ memory counted through a `[&]` lambda (atomicAdd on a captured shared
// array), cleared and flushed by lambdas taking the bin index, the flush adding into the zeroed output.
#include <cuda_runtime.h>
#include <stdint.h>

#define BINS 64

__global__ void hist_lambda_bins(const int* __restrict__ x, int* __restrict__ counts, int n) {
  __shared__ int bins[BINS];
  auto for_each_bin = [](auto f) {
    for (int b = threadIdx.x; b < BINS; b += blockDim.x) f(b);
  };
  for_each_bin([&](int b) { bins[b] = 0; });
  __syncthreads();
  auto count = [&](int v) { atomicAdd(&bins[v], 1); };
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) count(x[i]);
  __syncthreads();
  for_each_bin([&](int b) {
    if (bins[b] != 0) atomicAdd(&counts[b], bins[b]);
  });
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, BINS * sizeof(int), stream);
  hist_lambda_bins<<<4, 96, 0, stream>>>(x, counts, (int)n);
}
