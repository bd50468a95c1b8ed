// A row in chunks of 128 floats through a two-stage pipeline of the whole block (libcu++'s <cuda/pipeline>):
// producer_acquire / cuda::memcpy_async(block, ...) / producer_commit run up to two chunks ahead of
// consumer_wait / consumer_release; the pipeline and its shared state are the block's, so threads read chunk
// elements other threads copied, and the next copy into a stage waits until every thread released it.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 128;
constexpr int kStages = 2;

__global__ void rowsum_block_pipeline(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float chunks[kStages][kThreads];
  __shared__ float partial[kThreads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, kStages> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const float* row = x + (int64_t)blockIdx.x * cols;
  const int count = (cols + kThreads - 1) / kThreads;
  float s = 0.f;
  for (int consumed = 0, fetched = 0; consumed < count; ++consumed) {
    for (; fetched < count && fetched < consumed + kStages; ++fetched) {
      pipe.producer_acquire();
      const int n = min(kThreads, cols - fetched * kThreads);
      // the last chunk's tail keeps a stale value: read below only up to n
      cuda::memcpy_async(block, chunks[fetched % kStages], row + fetched * kThreads, sizeof(float) * n, pipe);
      pipe.producer_commit();
    }
    pipe.consumer_wait();
    const int n = min(kThreads, cols - consumed * kThreads);
    // each thread reads a neighbour's element, which another thread copied
    const int i = (threadIdx.x + 1) % kThreads;
    if (i < n) s += chunks[consumed % kStages][i];
    pipe.consumer_release();
  }
  partial[threadIdx.x] = s;
  block.sync();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) partial[threadIdx.x] += partial[threadIdx.x + stride];
    block.sync();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_block_pipeline<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
