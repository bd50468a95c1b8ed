// rowsum: 16-lane tiles, several per row: each tile reduces its share of the row and one of its lanes adds it
// to the row's sum by an atomicAdd inside cg::invoke_one (the tile's leader), after the first tile of the row
// wrote zero there; invoke_one_broadcast gives the tile the column its next round starts at.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int kTiles = 4;  // tiles per row (one 64-thread block per row)

__global__ void row_sums_tiles(const float* __restrict__ x, float* __restrict__ y, int cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(block);
  const int row = blockIdx.x;
  if (threadIdx.x == 0) y[row] = 0.0f;
  block.sync();
  float partial = 0.0f;
  int start = tile.meta_group_rank() * 16;
  while (start < cols) {
    const int c = start + (int)tile.thread_rank();
    if (c < cols) partial += x[(size_t)row * cols + c];
    start = cg::invoke_one_broadcast(tile, [](int s) { return s + kTiles * 16; }, start);
  }
  const float sum = cg::reduce(tile, partial, cg::plus<float>());
  cg::invoke_one(tile, [&] { atomicAdd(y + row, sum); });
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  row_sums_tiles<<<(int)rows, kTiles * 16, 0, stream>>>(x, y, (int)cols);
}
