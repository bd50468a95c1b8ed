// axpy with a bool template parameter (a fused-epilogue switch, as in ATen/FT kernels), one launch
// with `true`.
#include <cuda_runtime.h>
#include <stdint.h>

template <bool kAddResidual>
__global__ void scale_add(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int n,
                          float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = alpha * x[i];
  if (kAddResidual) v += w[i];
  y[i] = v;
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  scale_add<true><<<(unsigned)((n + 255) / 256), 256, 0, stream>>>(x, w, y, (int)n, alpha);
}
