// Less common half2 intrinsics: __hneg2, __habs2-free sign flips through __hsub2, __lowhigh2highlow,
// __low2half2/__high2half2, __hmax2/__hmin2 clamps that never bind, make_half2, __h2div by one.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void half2_axpy_more(const __half* __restrict__ x, const __half* __restrict__ w, __half* __restrict__ y, int n,
                                float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int pairs = n / 2;
  const half2 big = make_half2(__float2half(60000.f), __float2half(60000.f));
  const half2 one = __float2half2_rn(1.f);
  if (i < pairs) {
    const half2 xv = reinterpret_cast<const half2*>(x)[i];
    const half2 wv = reinterpret_cast<const half2*>(w)[i];
    const half2 swapped = __lowhigh2highlow(xv);             // (x1, x0)
    const half2 back = __halves2half2(__high2half(swapped), __low2half(swapped));  // (x0, x1)
    const half2 ax = __hmul2(__float2half2_rn(alpha), back);
    half2 r = __hsub2(wv, __hneg2(ax));                      // w + a x
    r = __hmin2(__hmax2(r, __hneg2(big)), big);
    r = __h2div(r, one);
    const half2 lo = __low2half2(r), hi = __high2half2(r);   // (r0, r0), (r1, r1)
    reinterpret_cast<half2*>(y)[i] = __halves2half2(__low2half(lo), __high2half(hi));
  }
  if (i == 0 && (n & 1)) y[n - 1] = __hadd(__hmul(__float2half(alpha), x[n - 1]), w[n - 1]);
}

extern "C" void half_axpy(const __half* x, const __half* w, __half* y, int64_t n, float alpha, cudaStream_t stream) {
  const int threads = 128;
  const int blocks = (int)((n / 2 + threads - 1) / threads) + 1;
  half2_axpy_more<<<blocks, threads, 0, stream>>>(x, w, y, (int)n, alpha);
}
