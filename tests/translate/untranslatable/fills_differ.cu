// Untranslatable: a kernel updates the output, zeroed by one fill kernel, and a scratch buffer of row maxima, filled
// with -INFINITY by another (line 23): MLX gives all outputs of a kernel one init_value.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__global__ void fill(float* p, float value, int n) {
  if (blockIdx.x * blockDim.x + threadIdx.x < n) p[blockIdx.x * blockDim.x + threadIdx.x] = value;
}

__global__ void sum_and_max(const float* x, float* y, float* row_max, int cols) {
  for (int c = threadIdx.x; c < cols; c += 32) {
    atomicAdd(&y[blockIdx.x], x[blockIdx.x * cols + c]);
    atomicMax((int*)&row_max[blockIdx.x], __float_as_int(x[blockIdx.x * cols + c]));
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float* row_max = nullptr;
  cudaMallocAsync(&row_max, rows * sizeof(float), stream);
  fill<<<(rows + 255) / 256, 256, 0, stream>>>(y, 0.0f, rows);
  fill<<<(rows + 255) / 256, 256, 0, stream>>>(row_max, -INFINITY, rows);
  sum_and_max<<<rows, 32, 0, stream>>>(x, y, row_max, cols);
  cudaFreeAsync(row_max, stream);
}
