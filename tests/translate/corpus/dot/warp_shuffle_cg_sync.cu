// A dot product reduced by warp shuffles, the warps' partials through shared memory sized by a
// template block size, `cooperative_groups::this_thread_block().sync()` as the barrier, one
// atomicAdd per block.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <algorithm>

namespace cg = cooperative_groups;

template <int BLOCK>
__global__ void __launch_bounds__(BLOCK) dot_warp(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out, int64_t n) {
  static_assert(BLOCK % 32 == 0, "whole warps");
  __shared__ float warp_sums[BLOCK / 32];
  cg::thread_block block = cg::this_thread_block();
  float acc = 0.0f;
  for (int64_t i = (int64_t)blockIdx.x * BLOCK + threadIdx.x; i < n; i += (int64_t)gridDim.x * BLOCK) acc = fmaf(x[i], w[i], acc);
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x >> 5;
  if (lane == 0) warp_sums[warp] = acc;
  block.sync();
  if (warp == 0) {
    float v = lane < BLOCK / 32 ? warp_sums[lane] : 0.0f;
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_down_sync(0xffffffffu, v, offset);
    if (lane == 0) atomicAdd(out, v);
  }
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  constexpr int kBlock = 128;
  const int grid = (int)std::min<int64_t>((n + kBlock - 1) / kBlock, 16);
  dot_warp<kBlock><<<grid, kBlock, 0, stream>>>(x, w, y, n);
}
