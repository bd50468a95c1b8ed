// The entry's and the kernel's parameters are named kernel (an MSL keyword).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_kw(const float* x, const float* kernel, float* y, int n, float alpha) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + kernel[i];
}

extern "C" void axpy(const float* x, const float* kernel, float* y, int64_t n, float alpha, cudaStream_t stream) {
  axpy_kw<<<(n + 255) / 256, 256, 0, stream>>>(x, kernel, y, (int)n, alpha);
}
