// histogram: one padded sub-histogram per warp in shared memory (unsigned counters, a row pointer per warp),
// int4 loads through __ldg of a reinterpret_cast pointer, a scalar tail, the block's totals added into the
// output viewed as unsigned after cudaMemsetAsync; unsigned indices throughout.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBins = 64;
constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

__global__ void __launch_bounds__(kThreads) hist_warp_private(const int* __restrict__ x, int* __restrict__ counts,
                                                             unsigned n) {
  __shared__ unsigned sub[kWarps][kBins + 1];
  for (unsigned i = threadIdx.x; i < kWarps * (kBins + 1); i += blockDim.x) (&sub[0][0])[i] = 0u;
  __syncthreads();
  unsigned* mine = sub[threadIdx.x / 32];
  const unsigned stride = gridDim.x * blockDim.x;
  const unsigned n4 = n / 4;
  const int4* x4 = reinterpret_cast<const int4*>(x);
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    const int4 v = __ldg(x4 + i);
    atomicAdd(&mine[v.x], 1u);
    atomicAdd(&mine[v.y], 1u);
    atomicAdd(&mine[v.z], 1u);
    atomicAdd(&mine[v.w], 1u);
  }
  for (unsigned i = n4 * 4 + blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) atomicAdd(&mine[__ldg(x + i)], 1u);
  __syncthreads();
  for (unsigned b = threadIdx.x; b < kBins; b += blockDim.x) {
    unsigned total = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) total += sub[w][b];
    if (total) atomicAdd(reinterpret_cast<unsigned*>(counts) + b, total);
  }
}

extern "C" void histogram(const int* x, int* counts, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(counts, 0, kBins * sizeof(int), stream);
  int blocks = (int)((n + kThreads * 4 - 1) / (kThreads * 4));
  blocks = blocks < 1 ? 1 : (blocks > 64 ? 64 : blocks);
  hist_warp_private<<<blocks, kThreads, 0, stream>>>(x, counts, (unsigned)n);
}
