// Cooperative groups: cg::reduce(tile, v, cg::plus<float>()) over 32-thread tiles, meta_group_rank().
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;

__global__ void rowsum_tiles(const float* __restrict__ x, float* __restrict__ y, int cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  __shared__ float warp_sums[8];
  float s = 0.f;
  for (int c = block.thread_rank(); c < cols; c += block.size()) s += x[(int64_t)blockIdx.x * cols + c];
  s = cg::reduce(tile, s, cg::plus<float>());
  if (tile.thread_rank() == 0) warp_sums[tile.meta_group_rank()] = s;
  block.sync();
  if (block.thread_rank() == 0) {
    float t = 0.f;
    for (int w = 0; w < 8; ++w) t += warp_sums[w];
    y[blockIdx.x] = t;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_tiles<<<rows, 256, 0, stream>>>(x, y, cols);
}
