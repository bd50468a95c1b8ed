// Host locals updated after their declaration (n2 /= 2; if (n2 < 512) threads = 64;): float2 loads.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_f2(const float2* __restrict__ x, const float2* __restrict__ w, float2* __restrict__ y, int n2, int n,
                        float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n2) {
    const float2 a = x[i], b = w[i];
    y[i] = make_float2(fmaf(alpha, a.x, b.x), fmaf(alpha, a.y, b.y));
  }
  if (i == 0 && (n & 1)) {
    const float* xs = reinterpret_cast<const float*>(x);
    const float* ws = reinterpret_cast<const float*>(w);
    float* ys = reinterpret_cast<float*>(y);
    ys[n - 1] = alpha * xs[n - 1] + ws[n - 1];
  }
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  int n2 = (int)n;
  n2 /= 2;
  int threads = 256;
  if (n2 < 512) threads = 64;
  axpy_f2<<<(n2 + threads) / threads, threads, 0, stream>>>((const float2*)x, (const float2*)w, (float2*)y, n2, (int)n,
                                                           alpha);
}
