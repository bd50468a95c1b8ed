// A 32 x 8 tiled transpose written with cooperative groups: the block handle's thread_index() and
// group_index() instead of threadIdx/blockIdx, block.sync(), a padded tile, __launch_bounds__(256, 4)
// and `namespace cg = cooperative_groups;`.
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int TILE = 32;
constexpr int ROWS = 8;

__global__ void __launch_bounds__(TILE * ROWS, 4) transpose_cg(const float* __restrict__ in, float* __restrict__ out, int rows,
                                                                int cols) {
  __shared__ float tile[TILE][TILE + 1];
  cg::thread_block block = cg::this_thread_block();
  const dim3 t = block.thread_index();
  const dim3 g = block.group_index();
  int x = g.x * TILE + t.x;
  int y = g.y * TILE + t.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < cols && y + j < rows) tile[t.y + j][t.x] = in[(size_t)(y + j) * cols + x];
  block.sync();
  x = g.y * TILE + t.x;
  y = g.x * TILE + t.y;
  for (int j = 0; j < TILE; j += ROWS)
    if (x < rows && y + j < cols) out[(size_t)(y + j) * rows + x] = tile[t.x][t.y + j];
}

extern "C" void transpose(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 block(TILE, ROWS);
  const dim3 grid((cols + TILE - 1) / TILE, (rows + TILE - 1) / TILE);
  transpose_cg<<<grid, block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
