// scan: eight-lane tiles, four rows per warp: each tile computes its lanes' exclusive prefix with
// cg::exclusive_scan and a lambda (the first lane's value is cg's undefined one, so lane 0 starts from 0),
// adds its own element for the inclusive sum, and carries the chunk's total (the last lane's) forward.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

template <unsigned Lanes>
__global__ void row_scan_tiles(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  auto tile = cg::tiled_partition<Lanes>(cg::this_thread_block());
  const int row = (blockIdx.x * blockDim.x + threadIdx.x) / Lanes;
  const bool valid = row < rows;
  const auto add = [](float a, float b) { return a + b; };
  float carry = 0.0f;
  for (int base = 0; base < cols; base += Lanes) {
    const int c = base + (int)tile.thread_rank();
    const float v = valid && c < cols ? x[(size_t)row * cols + c] : 0.0f;
    const float before = cg::exclusive_scan(tile, v, add);
    const float s = (tile.thread_rank() == 0 ? 0.0f : before) + v + carry;
    if (valid && c < cols) y[(size_t)row * cols + c] = s;
    carry = tile.shfl(s, Lanes - 1);
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr unsigned kLanes = 8;
  const int threads = 128;
  const int blocks = (int)((rows * kLanes + threads - 1) / threads);
  row_scan_tiles<kLanes><<<blocks, threads, 0, stream>>>(x, y, (int)rows, (int)cols);
}
