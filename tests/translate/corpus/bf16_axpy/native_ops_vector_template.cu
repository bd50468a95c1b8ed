// bf16 axpy with __nv_bfloat16 arithmetic (sm_80 native operators and __hfma), the pairs as
// __nv_bfloat162 loaded with __ldg, __hfma2 with a broadcast alpha, an odd tail, a templated scalar type.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T, typename T2>
__global__ void axpy_pairs(const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, int n, float alpha) {
  const T a = __float2bfloat16(alpha);
  const T2 a2 = __bfloat162bfloat162(a);
  const T2* x2 = reinterpret_cast<const T2*>(x);
  const T2* w2 = reinterpret_cast<const T2*>(w);
  T2* y2 = reinterpret_cast<T2*>(y);
  const int half_n = n >> 1;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < half_n; i += blockDim.x * gridDim.x) {
    y2[i] = __hfma2(a2, __ldg(x2 + i), __ldg(w2 + i));
  }
  if ((n & 1) && blockIdx.x == 0 && threadIdx.x == 0) {
    const T xv = x[n - 1];
    y[n - 1] = __hfma(a, xv, w[n - 1]);
  }
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  axpy_pairs<__nv_bfloat16, __nv_bfloat162><<<4, 256, 0, stream>>>(x, w, y, (int)n, alpha);
}
