// bf16 pairs: __nv_bfloat162 loads, __bfloat1622float2, __floats2bfloat162_rn, and __low2bfloat16 /
// __high2bfloat16 for the last odd element of the pair loop.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

template <int kThreads>
__global__ void __launch_bounds__(kThreads) bf162_axpy_kernel(const __nv_bfloat16* __restrict__ x,
                                                             const __nv_bfloat16* __restrict__ w,
                                                             __nv_bfloat16* __restrict__ y, int64_t n, float alpha) {
  const int64_t i = ((int64_t)blockIdx.x * kThreads + threadIdx.x) * 2;
  if (i + 1 < n) {
    const __nv_bfloat162 xv = *reinterpret_cast<const __nv_bfloat162*>(x + i);
    const __nv_bfloat162 wv = *reinterpret_cast<const __nv_bfloat162*>(w + i);
    const float2 xf = __bfloat1622float2(xv);
    const float2 wf = __bfloat1622float2(wv);
    *reinterpret_cast<__nv_bfloat162*>(y + i) = __floats2bfloat162_rn(alpha * xf.x + wf.x, alpha * xf.y + wf.y);
  } else if (i < n) {
    const __nv_bfloat162 pair = __halves2bfloat162(x[i], w[i]);
    y[i] = __float2bfloat16(alpha * __bfloat162float(__low2bfloat16(pair)) + __bfloat162float(__high2bfloat16(pair)));
  }
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  constexpr int kThreads = 256;
  const int64_t pairs = (n + 1) / 2;
  bf162_axpy_kernel<kThreads><<<(unsigned)((pairs + kThreads - 1) / kThreads), kThreads, 0, stream>>>(x, w, y, n, alpha);
}
