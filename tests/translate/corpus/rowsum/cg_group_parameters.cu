// Cooperative-group handles passed to __device__ functions: a 32-thread tile by value, the block by
// const reference, and a function taking only the tile.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;

__device__ float tile_sum(cg::thread_block_tile<32> tile, float v) {
  for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_down(v, o);
  return v;
}

__device__ float block_sum(const cg::thread_block& block, float* partial, float v) {
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  v = tile_sum(tile, v);
  if (tile.thread_rank() == 0) partial[tile.meta_group_rank()] = v;
  block.sync();
  v = block.thread_rank() < block.size() / 32 ? partial[block.thread_rank()] : 0.f;
  if (tile.meta_group_rank() == 0) v = tile_sum(tile, v);
  return v;
}

__device__ unsigned first_lane(const cg::thread_block_tile<32>& tile) { return tile.thread_rank() == 0; }

__global__ void rowsum_cg(const float* x, float* y, int cols) {
  __shared__ float partial[32];
  cg::thread_block block = cg::this_thread_block();
  float s = 0.f;
  for (int c = block.thread_rank(); c < cols; c += block.size()) s += x[(int64_t)blockIdx.x * cols + c];
  s = block_sum(block, partial, s);
  if (block.thread_rank() == 0 && first_lane(cg::tiled_partition<32>(block))) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_cg<<<rows, 256, 0, stream>>>(x, y, (int)cols);
}
