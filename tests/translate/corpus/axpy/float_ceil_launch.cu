// A float division and ceil in the launch size.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

__global__ void axpy_k(const float* x, const float* w, float* y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + w[i];
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const int blocks = (int)ceil((float)n / 256.0f);
  axpy_k<<<blocks, 256, 0, stream>>>(x, w, y, (int)n, alpha);
}
