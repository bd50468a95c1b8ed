// A dim3 grid assigned as a whole under an if (dim3's assignment operator: a call, not a built-in assignment).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void axpy_k(const float* x, const float* w, float* y, int64_t n, float alpha) {
  int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + w[i];
}
extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  dim3 block(256);
  dim3 grid(1);
  if (n > 256) grid = dim3((unsigned)((n + 255) / 256));
  axpy_k<<<grid, block, 0, stream>>>(x, w, y, n, alpha);
}
