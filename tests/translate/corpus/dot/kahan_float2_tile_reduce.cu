// dot: per-thread Kahan-compensated sums over float2 pairs (__ldg of reinterpret_cast<const float2*>), a size_t
// grid-stride loop, a 32-thread tile's cg::reduce, warp sums through shared memory, one atomicAdd per block
// after cudaMemsetAsync; a struct with a __device__ method carrying the compensation.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;

struct Kahan {
  float sum = 0.f;
  float c = 0.f;
  __device__ void add(float v) {
    const float yv = v - c;
    const float t = sum + yv;
    c = (t - sum) - yv;
    sum = t;
  }
};

template <int kThreads>
__global__ void __launch_bounds__(kThreads) dot_kahan(const float* __restrict__ x, const float* __restrict__ w,
                                                      float* __restrict__ out, size_t n) {
  __shared__ float warp_sums[kThreads / 32];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  Kahan acc;
  const size_t pairs = n / 2;
  const float2* x2 = reinterpret_cast<const float2*>(x);
  const float2* w2 = reinterpret_cast<const float2*>(w);
  const size_t stride = (size_t)gridDim.x * kThreads;
  for (size_t i = (size_t)blockIdx.x * kThreads + threadIdx.x; i < pairs; i += stride) {
    const float2 a = __ldg(x2 + i);
    const float2 b = __ldg(w2 + i);
    acc.add(a.x * b.x);
    acc.add(a.y * b.y);
  }
  if ((n & 1) && blockIdx.x == 0 && threadIdx.x == 0) acc.add(x[n - 1] * w[n - 1]);
  const float s = cg::reduce(tile, acc.sum, cg::plus<float>());
  if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = s;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    float t = tile.thread_rank() < kThreads / 32 ? warp_sums[tile.thread_rank()] : 0.f;
    t = cg::reduce(tile, t, cg::plus<float>());
    if (tile.thread_rank() == 0) atomicAdd(out, t);
  }
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  constexpr int kThreads = 256;
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  int blocks = (int)((n / 2 + kThreads - 1) / kThreads);
  if (blocks < 1) blocks = 1;
  if (blocks > 48) blocks = 48;
  dot_kahan<kThreads><<<blocks, kThreads, 0, stream>>>(x, w, y, (size_t)n);
}
