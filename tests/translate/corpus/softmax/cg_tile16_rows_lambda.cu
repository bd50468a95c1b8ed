// Sixteen-lane tiles (two rows per warp) through cg::tiled_partition<16>, with a generic device lambda
// reducing by the tile's shfl_xor, and cg::reduce with cg::greater for the maximum.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <float.h>
#include <stdint.h>

namespace cg = cooperative_groups;

__global__ void softmax_tiles16(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  auto block = cg::this_thread_block();
  auto tile = cg::tiled_partition<16>(block);
  const int row = blockIdx.x * (blockDim.x / 16) + tile.meta_group_rank();
  if (row >= rows) return;
  const float* in = x + (size_t)row * cols;
  auto tile_sum = [&](float v) {
    for (int o = tile.size() / 2; o > 0; o /= 2) v += tile.shfl_xor(v, o);
    return v;
  };
  float m = -FLT_MAX;
  for (int c = tile.thread_rank(); c < cols; c += tile.size()) m = fmaxf(m, in[c]);
  m = cg::reduce(tile, m, cg::greater<float>());
  float s = 0.f;
  for (int c = tile.thread_rank(); c < cols; c += tile.size()) s += expf(in[c] - m);
  s = tile_sum(s);
  for (int c = tile.thread_rank(); c < cols; c += tile.size()) y[(size_t)row * cols + c] = expf(in[c] - m) / s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 64;
  const int rows_per_block = threads / 16;
  softmax_tiles16<<<(unsigned)((rows + rows_per_block - 1) / rows_per_block), threads, 0, stream>>>(x, y, (int)rows, (int)cols);
}
