// A two-pass reduction: the first kernel writes one partial per block into a cudaMallocAsync scratch,
// the second (one block) sums the partials; both reduce with __shfl_down_sync and shared warp sums.
#include <cuda_runtime.h>
#include <stdint.h>

template <int kBlock>
__device__ __forceinline__ float block_reduce_sum(float v) {
  __shared__ float shared[kBlock / 32];
  const int lane = threadIdx.x % 32, wid = threadIdx.x / 32;
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  if (lane == 0) shared[wid] = v;
  __syncthreads();
  v = threadIdx.x < kBlock / 32 ? shared[lane] : 0.f;
  if (wid == 0) {
#pragma unroll
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  }
  return v;
}

template <int kBlock>
__global__ void dot_partials(const float* __restrict__ a, const float* __restrict__ b, float* __restrict__ partials,
                             int n) {
  float acc = 0.f;
  for (int i = blockIdx.x * kBlock + threadIdx.x; i < n; i += gridDim.x * kBlock) acc = fmaf(a[i], b[i], acc);
  acc = block_reduce_sum<kBlock>(acc);
  if (threadIdx.x == 0) partials[blockIdx.x] = acc;
}

template <int kBlock>
__global__ void sum_partials(const float* __restrict__ partials, float* __restrict__ out, int count) {
  float acc = 0.f;
  for (int i = threadIdx.x; i < count; i += kBlock) acc += partials[i];
  acc = block_reduce_sum<kBlock>(acc);
  if (threadIdx.x == 0) *out = acc;
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  constexpr int kBlock = 256;
  constexpr int kMaxBlocks = 64;
  int blocks = (int)((n + kBlock - 1) / kBlock);
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  float* partials = nullptr;
  cudaMallocAsync(&partials, kMaxBlocks * sizeof(float), stream);
  dot_partials<kBlock><<<blocks, kBlock, 0, stream>>>(x, w, partials, (int)n);
  sum_partials<kBlock><<<1, kBlock, 0, stream>>>(partials, y, blocks);
  cudaFreeAsync(partials, stream);
}
