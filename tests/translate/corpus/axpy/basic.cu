// One thread per element, bounds check (thread and block indices, blockDim).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_kernel(const float* x, const float* w, float* y, int n, float alpha) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + w[i];
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const int threads = 256;
  const int blocks = (n + threads - 1) / threads;
  axpy_kernel<<<blocks, threads, 0, stream>>>(x, w, y, n, alpha);
}
