// half2 arithmetic intrinsics in the style of Apex / PyTorch fp16 kernels: the scale rebuilt in the
// kernel as __h2div(num2, den2) of two __float2half2_rn values, pairs read with __ldg through
// reinterpret_cast<const __half2*>, y = __hadd2(__hmul2(a2, x2), w2) and the same pair again through
// __hfma2 kept when both agree (__hbeq2), __low2half / __high2half / __halves2half2 to rebuild the
// pair, an odd last element done with __hadd / __hmul on __half, a 64-bit grid-stride loop.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void __launch_bounds__(256) half2_axpy_kernel(const __half* __restrict__ x, const __half* __restrict__ w,
                                                         __half* __restrict__ y, int64_t n, float scale_num,
                                                         float scale_den) {
  const __half2 a2 = __h2div(__float2half2_rn(scale_num), __float2half2_rn(scale_den));
  const int64_t n2 = n / 2;
  const __half2* __restrict__ x2 = reinterpret_cast<const __half2*>(x);
  const __half2* __restrict__ w2 = reinterpret_cast<const __half2*>(w);
  __half2* __restrict__ y2 = reinterpret_cast<__half2*>(y);
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n2; i += (int64_t)gridDim.x * blockDim.x) {
    const __half2 xv = __ldg(x2 + i);
    const __half2 wv = __ldg(w2 + i);
    const __half2 fused = __hfma2(a2, xv, wv);
    const __half2 split = __hadd2(__hmul2(a2, xv), wv);
    // keep the fused result; the split one only where it rounds the same (it always is the fallback)
    const __half2 r = __hbeq2(fused, split) ? split : fused;
    y2[i] = __halves2half2(__low2half(r), __high2half(r));
  }
  if ((n & 1) && blockIdx.x == 0 && threadIdx.x == 0) {
    const __half a = __low2half(a2);
    y[n - 1] = __hadd(__hmul(a, x[n - 1]), w[n - 1]);
  }
}

extern "C" void half_axpy(const __half* x, const __half* w, __half* y, int64_t n, float alpha, cudaStream_t stream) {
  const int threads = 256;
  const int64_t pairs = n / 2;
  int blocks = (int)((pairs + threads - 1) / threads);
  if (blocks < 1) blocks = 1;
  if (blocks > 1024) blocks = 1024;
  half2_axpy_kernel<<<blocks, threads, 0, stream>>>(x, w, y, n, alpha * 2.0f, 2.0f);
}
