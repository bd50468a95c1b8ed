// A row in chunks of 256 floats staged by the block's collective cg::memcpy_async (the last chunk shorter), waited for
// with cg::wait(block); each warp then stages its 32 partial sums by a tile's copy and cg::wait(tile) before lane 0
// adds them (cooperative_groups/memcpy_async.h).
#include <cooperative_groups.h>
#include <cooperative_groups/memcpy_async.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int kChunk = 256;
constexpr int kThreads = 128;

__global__ void rowsum_cg_copy(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float chunk[kChunk];
  __shared__ float partial[kThreads];
  __shared__ float staged[kThreads];
  cg::thread_block block = cg::this_thread_block();
  cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
  const float* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c0 = 0; c0 < cols; c0 += kChunk) {
    const int n = min(kChunk, cols - c0);
    cg::memcpy_async(block, chunk, row + c0, sizeof(float) * n);
    cg::wait(block);
    for (int i = threadIdx.x; i < n; i += kThreads) s += chunk[i];
    block.sync();  // the next chunk overwrites this one
  }
  partial[threadIdx.x] = s;
  block.sync();
  const int first = 32 * (threadIdx.x / 32);
  cg::memcpy_async(warp, staged + first, partial + first, sizeof(float) * 32);
  cg::wait(warp);
  if (warp.thread_rank() == 0) {
    float w = 0.f;
    for (int i = 0; i < 32; ++i) w += staged[first + i];
    partial[first] = w;
  }
  block.sync();
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0] + partial[32] + partial[64] + partial[96];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_cg_copy<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
