// __nv_bfloat162 pairs: loads through reinterpret_cast, __bfloat1622float2 and
// __floats2bfloat162_rn, the odd tail through __bfloat162float / __float2bfloat16; 64-bit indices.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void bf16_axpy_pairs(const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                                __nv_bfloat16* __restrict__ y, int64_t n, float alpha) {
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) {
    const float2 a = __bfloat1622float2(reinterpret_cast<const __nv_bfloat162*>(x)[i]);
    const float2 b = __bfloat1622float2(reinterpret_cast<const __nv_bfloat162*>(w)[i]);
    reinterpret_cast<__nv_bfloat162*>(y)[i] = __floats2bfloat162_rn(alpha * a.x + b.x, alpha * a.y + b.y);
  } else if (2 * i + 1 == n) {
    y[2 * i] = __float2bfloat16(alpha * __bfloat162float(x[2 * i]) + __bfloat162float(w[2 * i]));
  }
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  const int64_t pairs = (n + 1) / 2;
  bf16_axpy_pairs<<<(unsigned)((pairs + 127) / 128), 128, 0, stream>>>(x, w, y, n, alpha);
}
