// rowsum: cg::reduce over tiles of 16 threads with an operation of the file (a functor with a const operator()),
// two tiles per row, their sums combined through __shared__ memory.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;

struct AddOp {
  __device__ float operator()(float a, float b) const { return a + b; }
};

__global__ void rowsum_tiles(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float partial[2];
  const cg::thread_block block = cg::this_thread_block();
  const cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const float* row = x + int64_t(blockIdx.x) * cols;
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += 32) s += row[c];
  s = cg::reduce(tile, s, AddOp{});
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = s;
  block.sync();
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0] + partial[1];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_tiles<<<rows, 32, 0, stream>>>(x, y, cols);
}
