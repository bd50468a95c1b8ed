// __half2 arithmetic with operators (a2 * x2 + w2, one rounding per operation), __float2half2_rn.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_half2_ops(const __half2* x, const __half2* w, __half2* y, const __half* xs, const __half* ws,
                               __half* ys, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const __half2 a2 = __float2half2_rn(alpha);
  if (2 * i + 1 < n) y[i] = a2 * x[i] + w[i];
  else if (2 * i < n) ys[2 * i] = __float2half(alpha * __half2float(xs[2 * i]) + __half2float(ws[2 * i]));
}

extern "C" void half_axpy(const __half* x, const __half* w, __half* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy_half2_ops<<<(n / 2 + 128) / 128, 128, 0, stream>>>((const __half2*)x, (const __half2*)w, (__half2*)y, x, w, y, (int)n,
                                                          alpha);
}
