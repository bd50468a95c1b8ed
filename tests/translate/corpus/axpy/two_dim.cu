// A 2-D launch (dim3 grid and block) over a flat vector, pointers offset in a local variable.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void axpy_2d(const float* x, const float* w, float* y, int n, float alpha) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int i = row * (gridDim.x * blockDim.x) + col;
  const float* xs = x + i;
  float* ys = y + i;
  if (i < n) *ys = alpha * *xs + w[i];
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  const dim3 block(32, 4);
  const int per_row = 32 * 4;
  const dim3 grid(4, (n + per_row * 4 - 1) / (per_row * 4));
  axpy_2d<<<grid, block, 0, stream>>>(x, w, y, n, alpha);
}
