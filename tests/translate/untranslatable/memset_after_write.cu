// Untranslatable: the output is zeroed (line 16) after a launch that wrote it; the second launch then adds into it.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void first_columns(const float* x, float* y, int cols) { y[blockIdx.x] = x[blockIdx.x * cols]; }

__global__ void add_rows(const float* x, float* y, int cols) {
  for (int c = threadIdx.x; c < cols; c += 32) atomicAdd(&y[blockIdx.x], x[blockIdx.x * cols + c]);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_columns<<<rows, 1, 0, stream>>>(x, y, cols);
  // (a debugging leftover: the first launch's result is thrown away)


  cudaMemsetAsync(y, 0, rows * sizeof(float), stream);
  add_rows<<<rows, 32, 0, stream>>>(x, y, cols);
}
