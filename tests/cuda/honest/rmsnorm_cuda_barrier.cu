// task: rmsnorm
// Several rows per block: the block copies its rows' first tile into shared memory with cooperative
// cuda::memcpy_async completing on a cuda::barrier, then a warp per row reduces and scales (rows longer than
// the tile read the rest from global memory).
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_runtime.h>
#include <cstdint>

namespace cg = cooperative_groups;

constexpr int kRowsPerBlock = 4;
constexpr int kTile = 2048;  // floats of each row kept in shared memory

__global__ void rmsnorm_barrier(const float* __restrict__ x, const float* __restrict__ weight, float* __restrict__ y, int64_t rows,
                                int64_t cols, float eps) {
  __shared__ alignas(16) float tile[kRowsPerBlock][kTile];
#pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) init(&bar, block.size());
  block.sync();
  const int64_t first = int64_t(blockIdx.x) * kRowsPerBlock;
  const int in_block = int(min(int64_t(kRowsPerBlock), rows - first));
  const int64_t staged = min(cols, int64_t(kTile));
  for (int r = 0; r < in_block; ++r)
    cuda::memcpy_async(block, tile[r], x + (first + r) * cols, sizeof(float) * size_t(staged), bar);
  bar.arrive_and_wait();
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  if (warp >= in_block) return;
  const float* row = x + (first + warp) * cols;
  float* out = y + (first + warp) * cols;
  float ss = 0.f;
  for (int64_t c = lane; c < cols; c += 32) {
    const float v = c < staged ? tile[warp][c] : row[c];
    ss += v * v;
  }
  for (int o = 16; o > 0; o >>= 1) ss += __shfl_xor_sync(0xffffffffu, ss, o);
  const float r = rsqrtf(ss / float(cols) + eps);
  for (int64_t c = lane; c < cols; c += 32) out[c] = (c < staged ? tile[warp][c] : row[c]) * r * weight[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const unsigned blocks = unsigned((rows + kRowsPerBlock - 1) / kRowsPerBlock);
  rmsnorm_barrier<<<blocks, 32 * kRowsPerBlock, 0, stream>>>(x, weight, y, rows, cols, eps);
}
