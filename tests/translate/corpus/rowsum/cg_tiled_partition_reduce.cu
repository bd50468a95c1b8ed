// Cooperative groups: a block's tiled_partition<32> reduced with shfl_down in a device helper taking
// the tile, meta_group_size(), partials in shared memory, block.sync().
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

__device__ float tile_sum(const cg::thread_block_tile<32>& tile, float v) {
  for (int i = tile.size() / 2; i > 0; i /= 2) v += tile.shfl_down(v, i);
  return v;
}

template <int kThreads>
__global__ void rowsum_cg(const float* __restrict__ x, float* __restrict__ y, int cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ float partial[kThreads / 32];
  const float* row = x + (size_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c = block.thread_rank(); c < cols; c += block.size()) s += row[c];
  s = tile_sum(tile, s);
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = s;
  block.sync();
  if (tile.meta_group_rank() == 0) {
    s = tile.thread_rank() < tile.meta_group_size() ? partial[tile.thread_rank()] : 0.f;
    s = tile_sum(tile, s);
    if (tile.thread_rank() == 0) y[blockIdx.x] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_cg<256><<<rows, 256, 0, stream>>>(x, y, (int)cols);
}
