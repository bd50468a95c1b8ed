// More fp16 intrinsics: __float22half2_rn, __half2half2, __hsub2, __hmax/__hneg/__habs (an identity
// clamp, max(r, -|r|) == r), __hgt, and the float conversions __int2float_rn and __float2int_rd.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void half_axpy_more(const __half* x, const __half* w, __half* y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int pair = __float2int_rd(__int2float_rn(i));  // the same index, through float
  if (2 * pair + 1 < n) {
    const float2 xf = __half22float2(reinterpret_cast<const __half2*>(x)[pair]);
    const float2 wf = __half22float2(reinterpret_cast<const __half2*>(w)[pair]);
    const __half2 zero = __hsub2(__half2half2(__float2half(1.f)), __half2half2(__float2half(1.f)));
    __half2 r = __float22half2_rn(make_float2(alpha * xf.x + wf.x, alpha * xf.y + wf.y));
    r = __hadd2(r, zero);
    __half lo = __low2half(r), hi = __high2half(r);
    lo = __hmax(lo, __hneg(__habs(lo)));
    hi = __hgt(hi, __hneg(__habs(hi))) ? hi : __hneg(__habs(hi));
    reinterpret_cast<__half2*>(y)[pair] = __halves2half2(lo, hi);
  } else if (2 * pair + 1 == n) {
    y[2 * pair] = __float2half(alpha * __half2float(x[2 * pair]) + __half2float(w[2 * pair]));
  }
}

extern "C" void half_axpy(const __half* x, const __half* w, __half* y, int64_t n, float alpha, cudaStream_t stream) {
  half_axpy_more<<<((n + 1) / 2 + 63) / 64, 64, 0, stream>>>(x, w, y, (int)n, alpha);
}
