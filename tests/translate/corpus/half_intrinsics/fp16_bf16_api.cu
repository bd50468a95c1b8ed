// cuda_fp16.h and cuda_bf16.h past the common operations: saturated, unfused (_rn), ReLU'd and NaN-propagating
// arithmetic, complex fma (__hcmadd), exp2/log2/log10/exp10/sin/cos/tanh of halves and half2s, unordered comparisons
// and comparison masks against a NaN, and conversions from float rounded down, up or toward zero (normal, subnormal
// and overflowing values) and to and from integers of every width and rounding. Arithmetic and math are summed in
// float per family (compared with a tolerance); conversions and comparisons are hashed bit for bit.
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ unsigned mix(unsigned h, unsigned v) { return (h << 5 | h >> 27) ^ v; }
__device__ __forceinline__ unsigned mix(unsigned h, __half v) { return mix(h, __hisnan(v) ? 0x7fffu : (unsigned)__half_as_ushort(v)); }
__device__ __forceinline__ unsigned mix(unsigned h, __nv_bfloat16 v) { return mix(h, (unsigned)__bfloat16_as_ushort(v)); }
__device__ __forceinline__ unsigned word(__half2 v) {
  return (unsigned)__half_as_ushort(__low2half(v)) | (unsigned)__half_as_ushort(__high2half(v)) << 16;
}
__device__ __forceinline__ float lanes(__half2 v) { return __low2float(v) + __high2float(v); }

__global__ void half_intrinsics_kernel(const __half* __restrict__ a, const __half* __restrict__ b,
                                       const __half* __restrict__ c, const float* __restrict__ f,
                                       const int* __restrict__ k, float* __restrict__ arith, float* __restrict__ exps,
                                       float* __restrict__ trig, int* __restrict__ bits, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const __half x = a[i], y = b[i], z = c[i];
  const __half2 xy = __halves2half2(x, y), yz = __halves2half2(y, z), zx = __halves2half2(z, x);
  arith[i] = __half2float(__hadd_sat(x, y)) + __half2float(__hsub_sat(x, y)) + __half2float(__hmul_sat(x, y)) +
             __half2float(__hfma_sat(x, y, z)) + __half2float(__hfma_relu(x, y, z)) + __half2float(__hadd_rn(x, y)) +
             __half2float(__hmul_rn(x, y)) + lanes(__hadd2_sat(xy, yz)) + lanes(__hfma2_relu(xy, yz, zx)) +
             lanes(__hmax2_nan(xy, zx)) + lanes(__hmin2_nan(xy, zx)) + lanes(__hcmadd(xy, yz, zx));
  const __half m = __hadd(__habs(x), __float2half(1.0f));
  exps[i] = __half2float(hexp2(x)) + __half2float(hlog2(m)) + __half2float(hlog10(m)) +
            __half2float(hexp10(__hmul(x, __float2half(0.25f)))) + lanes(h2exp2(__hmul2(xy, __float2half2_rn(0.5f)))) +
            lanes(h2log2(__halves2half2(m, m)));
  trig[i] = __half2float(hsin(x)) + __half2float(hcos(x)) + __half2float(htanh(x)) + lanes(h2sin(xy)) + lanes(h2cos(yz));
  const __half nan = __ushort_as_half(0x7e00);
  const __half2 xn = __halves2half2(x, nan);
  const float v = f[i], small = v * 0x1p-20f;
  const int w = k[i];
  const long long wide = (long long)w << 20;
  unsigned h = 0;
  h = mix(h, __float2half_rz(v)); h = mix(h, __float2half_rd(v)); h = mix(h, __float2half_ru(v));
  h = mix(h, __float2half_rz(small)); h = mix(h, __float2half_rd(small)); h = mix(h, __float2half_ru(small));
  h = mix(h, __float2bfloat16_rz(v)); h = mix(h, __float2bfloat16_rd(v)); h = mix(h, __float2bfloat16_ru(v));
  h = mix(h, __int2half_rn(w)); h = mix(h, __int2half_rz(w)); h = mix(h, __int2half_rd(w)); h = mix(h, __int2half_ru(w));
  h = mix(h, __short2half_rn((short)w)); h = mix(h, __ushort2half_rd((unsigned short)w));
  h = mix(h, __int2bfloat16_rn(w)); h = mix(h, __uint2bfloat16_rd((unsigned)w)); h = mix(h, __ll2bfloat16_rn(wide));
  h = mix(h, __ll2bfloat16_ru(wide)); h = mix(h, __ull2half_rz((unsigned long long)(w & 0xffff)));
  h = mix(h, (unsigned)__half2int_rn(x)); h = mix(h, (unsigned)__half2int_rd(x)); h = mix(h, (unsigned)__half2int_ru(x));
  h = mix(h, (unsigned)__half2int_rz(x)); h = mix(h, (unsigned)__half2ll_rd(__hmul(x, __float2half(100.0f))));
  h = mix(h, (unsigned)__half2ushort_rz(m)); h = mix(h, (unsigned)__bfloat162int_rn(__float2bfloat16(v)));
  h = mix(h, (unsigned)__bfloat162short_rd(__float2bfloat16(small * 1000.0f)));
  h = mix(h, (unsigned)__hequ(x, y) | (unsigned)__hequ(x, nan) << 1 | (unsigned)__hneu(x, x) << 2 |
                 (unsigned)__hgeu(x, y) << 3 | (unsigned)__hgtu(nan, x) << 4 | (unsigned)__hleu(x, y) << 5 |
                 (unsigned)__hltu(x, nan) << 6 | (unsigned)__hbne2(xy, zx) << 7 | (unsigned)__hbge2(xy, zx) << 8 |
                 (unsigned)__hble2(xy, zx) << 9 | (unsigned)__hbequ2(xn, xn) << 10 | (unsigned)__hbltu2(xy, xn) << 11);
  h = mix(h, __heq2_mask(xy, __halves2half2(z, y))); h = mix(h, __hlt2_mask(xy, zx)); h = mix(h, __hge2_mask(xn, zx));
  h = mix(h, word(__hisnan2(xn)));
  h = mix(h, __hmax_nan(x, nan)); h = mix(h, __hmax_nan(x, y)); h = mix(h, __hmin_nan(nan, y));
  h = mix(h, word(__lows2half2(xy, zx))); h = mix(h, word(__highs2half2(xy, zx)));
  h = mix(h, word(__hgeu2(xn, zx)));
  bits[i] = (int)h;
}

extern "C" void half_intrinsics(const __half* a, const __half* b, const __half* c, const float* f, const int* k,
                                float* arith, float* exps, float* trig, int* bits, int64_t n, cudaStream_t stream) {
  const int block = 128;
  half_intrinsics_kernel<<<(unsigned)((n + block - 1) / block), block, 0, stream>>>(a, b, c, f, k, arith, exps, trig,
                                                                                   bits, (int)n);
}
