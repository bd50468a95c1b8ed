// bf16 pairs (__bfloat1622float2, __floats2bfloat162_rn), the bf16 overloads of __hadd/__hmul for the tail.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_bf162(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (2 * i + 1 < n) {
    const float2 a = __bfloat1622float2(reinterpret_cast<const __nv_bfloat162*>(x)[i]);
    const float2 b = __bfloat1622float2(reinterpret_cast<const __nv_bfloat162*>(w)[i]);
    reinterpret_cast<__nv_bfloat162*>(y)[i] = __floats2bfloat162_rn(alpha * a.x + b.x, alpha * a.y + b.y);
  } else if (2 * i < n) {
    const __nv_bfloat16 a = __float2bfloat16(alpha);
    y[2 * i] = __hadd(__hmul(a, x[2 * i]), w[2 * i]);
  }
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  const int threads = 128;
  axpy_bf162<<<(n / 2 + threads) / threads, threads, 0, stream>>>(x, w, y, (int)n, alpha);
}
