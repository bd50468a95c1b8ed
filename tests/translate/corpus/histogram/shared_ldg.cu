// A shared-memory histogram: bins zeroed by a block-strided loop, __ldg reads in a grid-stride
// loop, shared atomicAdd, then one global atomicAdd per bin (the output zeroed by cudaMemset).
#include <cuda_runtime.h>
#include <stdint.h>

#define NUM_BINS 64

__global__ void histogram_smem(const int* __restrict__ data, int* __restrict__ hist, int n) {
  __shared__ unsigned int local[NUM_BINS];
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x) local[b] = 0;
  __syncthreads();
  const int stride = blockDim.x * gridDim.x;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const int v = __ldg(&data[i]);
    if (v >= 0 && v < NUM_BINS) atomicAdd(&local[v], 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < NUM_BINS; b += blockDim.x)
    if (local[b] > 0) atomicAdd(&hist[b], (int)local[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemset(counts, 0, NUM_BINS * sizeof(int));
  const int threads = 96;
  const int blocks = (int)((n + threads * 4 - 1) / (threads * 4));
  histogram_smem<<<blocks, threads, 0, stream>>>(x, counts, (int)n);
}
