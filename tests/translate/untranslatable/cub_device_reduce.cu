// Untranslatable: cub::DeviceReduce::Sum called from the host (line 15), CUB's own kernels with a temporary buffer.
#include <cub/cub.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void square(const float* x, float* y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = x[i];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  void* temp = nullptr;
  size_t temp_bytes = 0;
  square<<<(rows + 127) / 128, 128, 0, stream>>>(x, y, (int)rows);
  cub::DeviceReduce::Sum(temp, temp_bytes, x, y, (int)(rows * cols), stream);
}
