// task: softmax
// Cooperative groups: a 32-thread tile per row, cg::reduce for the maximum and the sum; the grid is sized from
// the occupancy calculator and the SM count, each tile striding over rows.
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cmath>

namespace cg = cooperative_groups;

constexpr int kThreads = 256;

__global__ void softmax_tiles(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> tile = cg::tiled_partition<32>(block);
  const int64_t tiles_per_grid = int64_t(gridDim.x) * (kThreads / 32);
  for (int64_t row = int64_t(blockIdx.x) * (kThreads / 32) + tile.meta_group_rank(); row < rows; row += tiles_per_grid) {
    const float* in = x + row * cols;
    float* out = y + row * cols;
    float m = -INFINITY;
    for (int64_t c = tile.thread_rank(); c < cols; c += tile.size()) m = fmaxf(m, in[c]);
    m = cg::reduce(tile, m, cg::greater<float>());
    float s = 0.f;
    for (int64_t c = tile.thread_rank(); c < cols; c += tile.size()) s += expf(in[c] - m);
    s = cg::reduce(tile, s, cg::plus<float>());
    for (int64_t c = tile.thread_rank(); c < cols; c += tile.size()) out[c] = expf(in[c] - m) / s;
  }
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0) return;
  int device = 0, sms = 0, per_sm = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, softmax_tiles, kThreads, 0);
  const int64_t needed = (rows + kThreads / 32 - 1) / (kThreads / 32);
  const int64_t resident = int64_t(sms > 0 ? sms : 1) * (per_sm > 0 ? per_sm : 1);
  const unsigned blocks = unsigned(needed < resident ? needed : resident);
  softmax_tiles<<<blocks, kThreads, 0, stream>>>(x, y, rows, cols);
}
