// A row in chunks of 256 floats staged by the block's cuda::memcpy_async completing on a cuda::barrier (libcu++'s
// <cuda/barrier>, initialized by thread 0 for the whole block), waited for with arrive_and_wait; then the threads'
// partial sums are staged by each thread's own copy on a second barrier, with a split arrive() ... wait(token)
// around independent work, as the CUDA programming guide's examples write them.
#include <cooperative_groups.h>
#include <cuda/barrier>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;
using block_barrier = cuda::barrier<cuda::thread_scope_block>;

constexpr int kChunk = 256;
constexpr int kThreads = 128;

__global__ void rowsum_barrier(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float chunk[kChunk];
  __shared__ float partial[kThreads];
  __shared__ float staged[kThreads];
  __shared__ block_barrier bars[2];
  auto block = cg::this_thread_block();
  if (block.thread_rank() == 0) {
    init(&bars[0], block.size());
    init(&bars[1], block.size());
  }
  block.sync();
  const float* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c0 = 0; c0 < cols; c0 += kChunk) {
    const int n = min(kChunk, cols - c0);
    cuda::memcpy_async(block, chunk, row + c0, sizeof(float) * n, bars[0]);
    bars[0].arrive_and_wait();
    // reversed, so that every thread reads elements other threads copied
    for (int i = threadIdx.x; i < n; i += kThreads) s += chunk[n - 1 - i];
    block.sync();  // the next chunk overwrites this one
  }
  cuda::memcpy_async(&staged[threadIdx.x], &s, sizeof(float), bars[1]);
  block_barrier::arrival_token token = bars[1].arrive();
  const bool leader = threadIdx.x == 0;  // work that needs no other thread's copy
  bars[1].wait(std::move(token));
  if (leader) {
    float total = 0.f;
    for (int i = 0; i < kThreads; ++i) total += staged[i];
    y[blockIdx.x] = total;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_barrier<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
