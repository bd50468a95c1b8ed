// A histogram through libcu++'s cuda::atomic_ref: block-private bins in shared memory counted by
// cuda::atomic_ref<int, cuda::thread_scope_block>::fetch_add (the memory order given, and dropped), then added to the
// global bins by cuda::std::atomic_ref temporaries; every eighth element goes through a compare_exchange_strong loop
// instead, and a bin's load() is checked before a store.
#include <cuda/atomic>
#include <cuda/std/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBins = 64;

__global__ void hist_atomic_ref(const int* x, int* counts, int n) {
  __shared__ int bins[kBins];
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    cuda::atomic_ref<int, cuda::thread_scope_block> bin(bins[b]);
    bin.store(0, cuda::memory_order_relaxed);
  }
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    cuda::atomic_ref<int, cuda::thread_scope_block> bin(bins[x[i]]);
    if (i % 8 != 0) {
      bin.fetch_add(1, cuda::memory_order_relaxed);
    } else {
      int seen = bin.load();
      while (!bin.compare_exchange_strong(seen, seen + 1)) {
      }
    }
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x)
    if (bins[b] != 0) cuda::std::atomic_ref<int>(counts[b]).fetch_add(bins[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, kBins * sizeof(int), stream);
  hist_atomic_ref<<<4, 128, 0, stream>>>(x, counts, (int)n);
}
