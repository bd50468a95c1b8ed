// Grid-stride float4 dot product with __ldg, a block accumulator in a __shared__ float updated by
// atomicAdd, a scalar tail by block 0, one global atomicAdd per block after cudaMemsetAsync.
#include <cuda_runtime.h>
#include <stdint.h>

template <int kBlock>
__global__ void __launch_bounds__(kBlock) dot_vec4(const float* __restrict__ x, const float* __restrict__ w,
                                                   float* __restrict__ y, int64_t n) {
  __shared__ float block_acc;
  if (threadIdx.x == 0) block_acc = 0.f;
  __syncthreads();
  const int64_t n4 = n / 4;
  const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
  const float4* __restrict__ w4 = reinterpret_cast<const float4*>(w);
  float acc = 0.f;
  for (int64_t i = blockIdx.x * (int64_t)kBlock + threadIdx.x; i < n4; i += (int64_t)kBlock * gridDim.x) {
    const float4 a = __ldg(x4 + i);
    const float4 b = __ldg(w4 + i);
    acc = fmaf(a.x, b.x, acc);
    acc = fmaf(a.y, b.y, acc);
    acc = fmaf(a.z, b.z, acc);
    acc = fmaf(a.w, b.w, acc);
  }
  if (blockIdx.x == 0)
    for (int64_t i = n4 * 4 + threadIdx.x; i < n; i += kBlock) acc += x[i] * w[i];
#pragma unroll
  for (int o = 16; o; o >>= 1) acc += __shfl_down_sync(0xffffffffu, acc, o);
  if ((threadIdx.x & 31) == 0) atomicAdd(&block_acc, acc);
  __syncthreads();
  if (threadIdx.x == 0) atomicAdd(y, block_acc);
}

extern "C" void dot(const float* x, const float* w, float* y, int64_t n, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, sizeof(float), stream);
  constexpr int kBlock = 256;
  const int64_t n4 = n / 4;
  const int blocks = (int)std::min<int64_t>(std::max<int64_t>((n4 + kBlock - 1) / kBlock, 1), 64);
  dot_vec4<kBlock><<<blocks, kBlock, 0, stream>>>(x, w, y, n);
}
