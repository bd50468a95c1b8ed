// A privatized histogram in dynamic shared memory, incremented by atomicAdd through a typedef'd pointer
// parameter of a helper, merged with global atomics; a grid-stride loop.
#include <cuda_runtime.h>
#include <stdint.h>

// the counter pointer as a typedef
typedef unsigned int* counter_ptr;

__device__ __forceinline__ void bump(counter_ptr bins, int bin) { atomicAdd(bins + bin, 1u); }

__global__ void hist_dynamic(const int* __restrict__ x, int* __restrict__ counts, int n, int bins) {
  extern __shared__ unsigned int s_hist[];
  for (int b = threadIdx.x; b < bins; b += blockDim.x) s_hist[b] = 0u;
  __syncthreads();
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) bump(s_hist, __ldg(x + i));
  __syncthreads();
  for (int b = threadIdx.x; b < bins; b += blockDim.x) {
    const unsigned int c = s_hist[b];
    if (c) atomicAdd(reinterpret_cast<unsigned int*>(counts) + b, c);
  }
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  const int bins = 64;
  cudaMemsetAsync(counts, 0, bins * sizeof(int), stream);
  const int threads = 256;
  const int blocks = (int)std::min<int64_t>((n + threads - 1) / threads, 8);
  hist_dynamic<<<blocks, threads, bins * sizeof(unsigned int), stream>>>(x, counts, (int)n, bins);
}
