// Untranslatable: a grid-wide sync of cooperative groups (line 7).
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_grid(const float* x, float* y, int cols) {
  y[blockIdx.x] = x[blockIdx.x * cols];
  cooperative_groups::this_grid().sync();
  if (threadIdx.x == 0) y[blockIdx.x] += y[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_grid<<<rows, 32, 0, stream>>>(x, y, cols);
}
