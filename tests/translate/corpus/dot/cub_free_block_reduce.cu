// A CUB-free block reduction: a templated BlockReduce-like struct with its TempStorage passed to its
// methods, __shfl_xor_sync butterflies, vectorized float4 loads with a scalar tail, one atomicAdd per block.
#include <cuda_runtime.h>
#include <stdint.h>

template <int kBlock>
struct BlockSum {
  static constexpr int kWarps = kBlock / 32;
  struct TempStorage {
    float warp_sums[kWarps];
  };
  __device__ static float warp_sum(float v) {
#pragma unroll
    for (int m = 16; m > 0; m >>= 1) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
  }
  __device__ static float sum(TempStorage& temp, float v) {
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    v = warp_sum(v);
    if (lane == 0) temp.warp_sums[warp] = v;
    __syncthreads();
    v = threadIdx.x < kWarps ? temp.warp_sums[lane] : 0.f;
    return warp == 0 ? warp_sum(v) : 0.f;
  }
};

template <int kBlock>
__global__ void dot_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ out, int64_t n) {
  __shared__ typename BlockSum<kBlock>::TempStorage temp;
  float acc = 0.f;
  const int64_t n4 = n / 4;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  const float4* w4 = reinterpret_cast<const float4*>(w);
  for (int64_t i = blockIdx.x * (int64_t)kBlock + threadIdx.x; i < n4; i += (int64_t)kBlock * gridDim.x) {
    const float4 a = x4[i], b = w4[i];
    acc += a.x * b.x + a.y * b.y + a.z * b.z + a.w * b.w;
  }
  for (int64_t i = 4 * n4 + blockIdx.x * (int64_t)kBlock + threadIdx.x; i < n; i += (int64_t)kBlock * gridDim.x)
    acc += x[i] * w[i];
  const float total = BlockSum<kBlock>::sum(temp, acc);
  if (threadIdx.x == 0) atomicAdd(out, total);
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  constexpr int kBlock = 256;
  const int blocks = (int)std::min<int64_t>((n + kBlock * 4 - 1) / (kBlock * 4), 64);
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  dot_kernel<kBlock><<<blocks, kBlock, 0, stream>>>(x, w, y, n);
}
