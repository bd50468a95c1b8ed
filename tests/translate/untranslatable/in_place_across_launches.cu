// Untranslatable: the second launch updates y in place after the first wrote each row's first column into it
// (line 14), a value no init_value gives; MLX kernels write fresh output arrays.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void k_first(const float* x, float* y, int cols) { y[blockIdx.x] = x[blockIdx.x * cols]; }

__global__ void k_add(const float* x, float* y, int cols) {
  for (int c = 1 + threadIdx.x; c < cols; c += 32) atomicAdd(&y[blockIdx.x], x[blockIdx.x * cols + c]);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_first<<<rows, 1, 0, stream>>>(x, y, cols);
  k_add<<<rows, 32, 0, stream>>>(x, y, cols);
}
