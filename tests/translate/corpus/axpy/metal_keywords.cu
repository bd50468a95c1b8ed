// Identifiers that are Metal keywords: a parameter named kernel, a local named device.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_kw(const float* __restrict__ x, const float* __restrict__ kernel, float* __restrict__ y, int n,
                        float alpha) {
  const int device = blockIdx.x * blockDim.x + threadIdx.x;
  if (device < n) y[device] = alpha * x[device] + kernel[device];
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy_kw<<<(n + 255) / 256, 256, 0, stream>>>(x, w, y, (int)n, alpha);
}
