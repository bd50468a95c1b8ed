// A zeroing kernel, then a kernel that adds each row's columns into the output with atomicAdd: the fill becomes the
// adding kernel's init_value (formerly untranslatable as an update in place across launches).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void k_zero(float* y, int rows) { if (threadIdx.x < rows) y[threadIdx.x] = 0.0f; }

__global__ void k_add(const float* x, float* y, int cols) {
  for (int c = threadIdx.x; c < cols; c += 32) atomicAdd(&y[blockIdx.x], x[blockIdx.x * cols + c]);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_zero<<<1, 1024, 0, stream>>>(y, rows);
  k_add<<<rows, 32, 0, stream>>>(x, y, cols);
}
