// Asynchronous copies from untyped (`const void*`) sources, as byte-oriented staging code passes them: each thread's
// float through __pipeline_memcpy_async, a chunk through cuda::memcpy_async(block, ...), both read in the destination's
// elements; the row's sum then from shared memory.
#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace cg = cooperative_groups;

constexpr int kThreads = 64;

__global__ void rowsum_void_sources(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float mine[kThreads];
  __shared__ float chunk[kThreads];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 1> state;
  auto block = cg::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state);
  const void* row = x + (int64_t)blockIdx.x * cols;
  float s = 0.f;
  for (int c0 = 0; c0 < cols; c0 += 2 * kThreads) {
    // the first half of the stretch: one float per thread
    const int c = c0 + (int)threadIdx.x;
    if (c < cols) __pipeline_memcpy_async(&mine[threadIdx.x], static_cast<const char*>(row) + sizeof(float) * c, sizeof(float));
    __pipeline_commit();
    __pipeline_wait_prior(0);
    if (c < cols) s += mine[threadIdx.x];
    // the second half: the block's chunk
    const int start = c0 + kThreads, n = max(0, min(kThreads, cols - start));
    pipe.producer_acquire();
    cuda::memcpy_async(block, chunk, static_cast<const void*>(static_cast<const float*>(row) + start), sizeof(float) * n, pipe);
    pipe.producer_commit();
    pipe.consumer_wait();
    const int i = (threadIdx.x + 7) % kThreads;  // another thread's element
    if (i < n) s += chunk[i];
    pipe.consumer_release();
  }
  for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
  __shared__ float warps[kThreads / 32];
  if (threadIdx.x % 32 == 0) warps[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = warps[0] + warps[1];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_void_sources<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
