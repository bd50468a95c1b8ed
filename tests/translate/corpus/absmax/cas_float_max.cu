// The amax of fp8 scaling recipes (Transformer Engine style): each block reduces a slice of a row
// with fmaxf(fabsf(.)) over float4 loads, warps merge with __shfl_down_sync (width 32 given), and
// the block's partial goes into the zeroed output through a float atomicMax built from atomicCAS.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float atomicMaxFloat(float* addr, float value) {
  unsigned int* const address_as_ui = reinterpret_cast<unsigned int*>(addr);
  unsigned int old = *address_as_ui, assumed;
  do {
    assumed = old;
    old = atomicCAS(address_as_ui, assumed, __float_as_uint(fmaxf(value, __uint_as_float(assumed))));
  } while (assumed != old);
  return __uint_as_float(old);
}

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int offset = 16; offset > 0; offset /= 2) v = fmaxf(v, __shfl_down_sync(0xffffffff, v, offset, 32));
  return v;
}

template <int kThreads>
__global__ void __launch_bounds__(kThreads, 4) amax_kernel(const float* __restrict__ x, float* __restrict__ amax, int cols,
                                                           int chunk) {
  static_assert(kThreads % 32 == 0, "whole warps");
  __shared__ float warp_partials[kThreads / 32];
  const int row = blockIdx.y;
  const int begin = blockIdx.x * chunk, end = min(begin + chunk, cols);
  const float* in = x + static_cast<size_t>(row) * cols;
  float m = 0.f;
  // float4 loads where the row's slice is 16-byte aligned, scalars elsewhere
  if ((cols & 3) == 0) {
    const float4* in4 = reinterpret_cast<const float4*>(in + begin);
    for (int i = threadIdx.x; i < (end - begin) / 4; i += kThreads) {
      const float4 v = in4[i];
      m = fmaxf(m, fmaxf(fmaxf(fabsf(v.x), fabsf(v.y)), fmaxf(fabsf(v.z), fabsf(v.w))));
    }
  } else {
    for (int i = begin + threadIdx.x; i < end; i += kThreads) m = fmaxf(m, fabsf(in[i]));
  }
  m = warp_max(m);
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_partials[warp] = m;
  __syncthreads();
  if (warp == 0) {
    m = lane < kThreads / 32 ? warp_partials[lane] : 0.f;
    m = warp_max(m);
    if (lane == 0) atomicMaxFloat(amax + row, m);
  }
}

extern "C" void absmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kThreads = 128;
  const int chunk = 512;
  cudaMemsetAsync(y, 0, rows * sizeof(float), stream);
  dim3 grid((cols + chunk - 1) / chunk, rows);
  amax_kernel<kThreads><<<grid, kThreads, 0, stream>>>(x, y, (int)cols, chunk);
}
