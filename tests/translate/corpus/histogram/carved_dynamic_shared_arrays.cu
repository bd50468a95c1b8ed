// Per-warp sub-histograms and the block's merged histogram carved out of one dynamic shared buffer
// (extern __shared__ int smem[]; int* warp_hist = smem; int* block_hist = smem + warps * BINS),
// grid-stride input loop, shared atomicAdd, __syncwarp, global atomicAdd after cudaMemsetAsync.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int BINS = 64;

__global__ void hist_carved(const int* __restrict__ x, int* __restrict__ counts, int n) {
  extern __shared__ int smem[];
  const int warps = blockDim.x / 32;
  int* warp_hist = smem;                      // warps * BINS
  int* block_hist = smem + warps * BINS;      // BINS
  const int tid = threadIdx.x;
  for (int i = tid; i < warps * BINS + BINS; i += blockDim.x) smem[i] = 0;
  __syncthreads();
  int* mine = warp_hist + (tid / 32) * BINS;
  for (int i = blockIdx.x * blockDim.x + tid; i < n; i += blockDim.x * gridDim.x) {
    const int b = __ldg(x + i);
    if (b >= 0 && b < BINS) atomicAdd(mine + b, 1);
  }
  __syncwarp();
  __syncthreads();
  for (int b = tid; b < BINS; b += blockDim.x) {
    int s = 0;
    for (int w = 0; w < warps; ++w) s += warp_hist[w * BINS + b];
    block_hist[b] = s;
  }
  __syncthreads();
  for (int b = tid; b < BINS; b += blockDim.x)
    if (block_hist[b] != 0) atomicAdd(&counts[b], block_hist[b]);
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, BINS * sizeof(int), stream);
  const int threads = 128;
  const int warps = threads / 32;
  const size_t smem = (size_t)(warps + 1) * BINS * sizeof(int);
  int blocks = (int)((n + threads - 1) / threads);
  if (blocks > 8) blocks = 8;
  hist_carved<<<blocks, threads, smem, stream>>>(x, counts, (int)n);
}
