// Untranslatable: a grid group handle and its sync() (line 11), as cooperative-launch reductions
// write it.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;
__global__ void k_grid_handle(const float* x, float* y, int cols) {
  cg::grid_group grid = cg::this_grid();
  const unsigned rank = grid.thread_rank();
  if (threadIdx.x == 0) y[blockIdx.x] = x[blockIdx.x * cols] + 0.f * rank;
  grid.sync();
  if (threadIdx.x == 0) y[blockIdx.x] += y[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_grid_handle<<<rows, 32, 0, stream>>>(x, y, cols);
}
