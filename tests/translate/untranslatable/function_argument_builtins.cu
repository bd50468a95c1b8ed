// Untranslatable: a __device__ function reading threadIdx passed as an argument (line 5): its function object cannot
// pass it the kernel's built-in variables.
#include <cuda_runtime.h>
#include <stdint.h>
__device__ float lane_weighted(float a, float b) { return a + b * float(threadIdx.x >= 0); }
template <typename Op> __device__ float fold(const float* row, int cols, Op op) {
  float acc = 0.f;
  for (int c = 0; c < cols; ++c) acc = op(acc, row[c]);
  return acc;
}
__global__ void k(const float* x, float* y, int cols) { y[blockIdx.x] = fold(x + (size_t)blockIdx.x * cols, cols, lane_weighted); }
extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) { k<<<rows, 1, 0, stream>>>(x, y, (int)cols); }
