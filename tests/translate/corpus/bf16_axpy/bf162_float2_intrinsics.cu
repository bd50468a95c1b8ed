// __nv_bfloat162 axpy computed in float: pairs widened with __bfloat1622float2, narrowed with
// __float22bfloat162_rn; alpha broadcast as __float2bfloat162_rn and read back with __low2float;
// __bfloat162bfloat162 for the tail's alpha; int4 loads of 8 bf16 values where n % 8 == 0.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ __nv_bfloat162 axpy2(const __nv_bfloat162 a, const __nv_bfloat162 x, const __nv_bfloat162 w) {
  const float2 af = __bfloat1622float2(a), xf = __bfloat1622float2(x), wf = __bfloat1622float2(w);
  return __float22bfloat162_rn(make_float2(fmaf(af.x, xf.x, wf.x), fmaf(af.y, xf.y, wf.y)));
}

__global__ void bf16_axpy_vec(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                              __nv_bfloat16* __restrict__ y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const __nv_bfloat162 a2 = __float2bfloat162_rn(alpha);
  if (n % 8 == 0) {
    if (i < n / 8) {
      const int4 xv = reinterpret_cast<const int4*>(x)[i];
      const int4 wv = reinterpret_cast<const int4*>(w)[i];
      int4 out;
      const __nv_bfloat162* xp = reinterpret_cast<const __nv_bfloat162*>(&xv);
      const __nv_bfloat162* wp = reinterpret_cast<const __nv_bfloat162*>(&wv);
      __nv_bfloat162* op = reinterpret_cast<__nv_bfloat162*>(&out);
#pragma unroll
      for (int k = 0; k < 4; ++k) op[k] = axpy2(a2, xp[k], wp[k]);
      reinterpret_cast<int4*>(y)[i] = out;
    }
  } else if (i < n) {
    const __nv_bfloat162 a = __bfloat162bfloat162(__float2bfloat16(__low2float(a2)));
    y[i] = __float2bfloat16(__low2float(a) * __bfloat162float(x[i]) + __bfloat162float(w[i]));
  }
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  bf16_axpy_vec<<<(n + 127) / 128, 128, 0, stream>>>(x, w, y, (int)n, alpha);
}
