// A 16-thread tile of cooperative groups (a segment of a SIMD group): thread_rank and an xor-shuffle
// reduction within the tile, one 16-thread block per row.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>
namespace cg = cooperative_groups;
__global__ void rowsum_tile16(const float* x, float* y, int cols) {
  cg::thread_block_tile<16> tile = cg::tiled_partition<16>(cg::this_thread_block());
  float s = 0.f;
  for (int c = tile.thread_rank(); c < cols; c += 16) s += x[(int64_t)blockIdx.x * cols + c];
  for (int o = 8; o > 0; o /= 2) s += tile.shfl_xor(s, o);
  if (tile.thread_rank() == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_tile16<<<rows, 16, 0, stream>>>(x, y, (int)cols);
}
