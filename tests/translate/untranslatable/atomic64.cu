// Untranslatable: a 64-bit atomic (line 6).
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_atomic64(const float* x, float* y, int cols) {
  __shared__ unsigned long long total;
  atomicAdd(&total, 1ull);
  if (threadIdx.x == 0) y[blockIdx.x] = float(total) + x[0] * cols;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_atomic64<<<rows, 32, 0, stream>>>(x, y, cols);
}
