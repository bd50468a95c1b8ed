// Untranslatable: a __constant__ scalar the host fills twice (line 13): the port gives every kernel that reads the
// symbol one value, and which one a launch sees depends on where it runs between the copies.
#include <cuda_runtime.h>
#include <stdint.h>
__constant__ float c_s;
__global__ void k(const float* x, float* y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r < rows) y[r] = x[(int64_t)r * cols] * c_s;
}
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const float a = 1.f, b = 2.f;
  cudaMemcpyToSymbol(c_s, &a, sizeof(float));
  cudaMemcpyToSymbol(c_s, &b, sizeof(float));
  k<<<(rows + 63) / 64, 64, 0, stream>>>(x, y, (int)rows, (int)cols);
}
