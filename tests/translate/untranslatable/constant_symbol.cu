// Untranslatable: __constant__ memory filled by the host with cudaMemcpyToSymbol (line 19) from a host array a loop
// fills at run time; an MLX kernel call has no counterpart (pass the values as a tensor of the task, or constexpr data).
#include <cuda_runtime.h>
#include <stdint.h>

__constant__ float c_scale[2];

__global__ void rowsum_k(const float* x, float* y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  float s = 0.f;
  for (int c = 0; c < cols; ++c) s += x[(int64_t)r * cols + c];
  y[r] = s * c_scale[0] * c_scale[1];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  float scales[2];
  for (int i = 0; i < 2; ++i) scales[i] = 1.f;
  cudaMemcpyToSymbol(c_scale, scales, sizeof(scales));
  rowsum_k<<<(rows + 63) / 64, 64, 0, stream>>>(x, y, (int)rows, (int)cols);
}
