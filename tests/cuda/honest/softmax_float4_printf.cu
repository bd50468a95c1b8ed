// task: softmax
// A block per row with float4 loads and stores where a row is 16-byte aligned (cols % 4 == 0), scalar
// otherwise; a debugging printf left in a branch that only an empty row takes, and device asserts.
#include <cuda_runtime.h>
#include <cassert>
#include <cstdint>
#include <cstdio>
#include <math_constants.h>

constexpr int kThreads = 256;

__device__ __forceinline__ float warp_max(float v) {
#pragma unroll
  for (int o = 16; o; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}
__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int o = 16; o; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <bool MAX>
__device__ float block_all(float v) {
  __shared__ float partial[kThreads / 32];
  v = MAX ? warp_max(v) : warp_sum(v);
  if (threadIdx.x % 32 == 0) partial[threadIdx.x / 32] = v;
  __syncthreads();
  v = partial[0];
  for (int w = 1; w < kThreads / 32; ++w) v = MAX ? fmaxf(v, partial[w]) : v + partial[w];
  __syncthreads();
  return v;
}

template <bool VEC>
__global__ void __launch_bounds__(kThreads) softmax_vec(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  assert(blockDim.x == kThreads);
  const float* in = x + int64_t(blockIdx.x) * cols;
  float* out = y + int64_t(blockIdx.x) * cols;
  const int64_t n4 = VEC ? cols / 4 : 0;
  const float4* in4 = reinterpret_cast<const float4*>(in);
  float4* out4 = reinterpret_cast<float4*>(out);
  float m = -CUDART_INF_F;
  for (int64_t i = threadIdx.x; i < n4; i += kThreads) {
    const float4 v = __ldg(in4 + i);
    m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
  }
  for (int64_t c = 4 * n4 + threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, in[c]);
  m = block_all<true>(m);
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < n4; i += kThreads) {
    const float4 v = __ldg(in4 + i);
    s += __expf(v.x - m) + __expf(v.y - m) + __expf(v.z - m) + __expf(v.w - m);
  }
  for (int64_t c = 4 * n4 + threadIdx.x; c < cols; c += kThreads) s += __expf(in[c] - m);
  s = block_all<false>(s);
  if (!(s > 0.f) && threadIdx.x == 0) printf("softmax: row %u has sum %f\n", blockIdx.x, s);
  const float inv = __frcp_rn(s);
  for (int64_t i = threadIdx.x; i < n4; i += kThreads) {
    const float4 v = __ldg(in4 + i);
    out4[i] = make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv);
  }
  for (int64_t c = 4 * n4 + threadIdx.x; c < cols; c += kThreads) out[c] = __expf(in[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) {
    printf("softmax: nothing to do (%lld x %lld)\n", (long long)rows, (long long)cols);
    return;
  }
  const bool aligned = cols % 4 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(y) % 16 == 0;
  if (aligned) softmax_vec<true><<<unsigned(rows), kThreads, 0, stream>>>(x, y, cols);
  else softmax_vec<false><<<unsigned(rows), kThreads, 0, stream>>>(x, y, cols);
  const cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) fprintf(stderr, "softmax launch failed: %s\n", cudaGetErrorString(err));
}
