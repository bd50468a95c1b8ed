// count_positive: a template over the tile size; each tile of TILE lanes counts with ballot and popc,
// any() skips all-negative chunks, and tile 0 of each row's block accumulates with atomicAdd.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;

template <int TILE>
__global__ void count_tiles(const float* __restrict__ x, int* __restrict__ y, int cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<TILE> tile = cg::tiled_partition<TILE>(block);
  const float* row = x + (int64_t)blockIdx.x * cols;
  int count = 0;
  const int tiles = blockDim.x / TILE;
  for (int base = tile.meta_group_rank() * TILE; base < cols; base += tiles * TILE) {
    const int c = base + tile.thread_rank();
    const bool positive = c < cols && row[c] > 0.f;
    if (!tile.any(positive)) continue;
    count += __popc(tile.ballot(positive));
  }
  if (tile.thread_rank() == 0) atomicAdd(&y[blockIdx.x], count);
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, rows * sizeof(int), stream);
  count_tiles<8><<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
