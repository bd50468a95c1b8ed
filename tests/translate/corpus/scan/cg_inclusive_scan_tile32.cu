// scan: one warp per row (the CUDA programming guide's cg::inclusive_scan): each 32-element chunk is scanned
// by cooperative_groups' inclusive_scan over a thread_block_tile<32>, and the chunk's total (its last lane's
// value, read by tile.shfl) carries into the next chunk.
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

__global__ void row_scan_cg(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const int row = blockIdx.x * (blockDim.x / 32) + warp.meta_group_rank();
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float carry = 0.0f;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + (int)warp.thread_rank();
    const float v = c < cols ? xr[c] : 0.0f;
    const float s = cg::inclusive_scan(warp, v) + carry;
    if (c < cols) yr[c] = s;
    carry = warp.shfl(s, 31);
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int warps_per_block = 4;
  const int blocks = (int)((rows + warps_per_block - 1) / warps_per_block);
  row_scan_cg<<<blocks, warps_per_block * 32, 0, stream>>>(x, y, (int)rows, (int)cols);
}
