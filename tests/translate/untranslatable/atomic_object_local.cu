// Untranslatable: a cuda::atomic object in a thread's own memory (line 7), where Metal has no atomics.
#include <cuda/atomic>
#include <cuda_runtime.h>
#include <stdint.h>
__global__ void k_local_atomic(const float* x, float* y, int cols) {
  // a counter no other thread can see
  cuda::atomic<int, cuda::thread_scope_thread> seen;
  seen.store(0);
  for (int c = threadIdx.x; c < cols; c += 32) seen.fetch_add(x[(int64_t)blockIdx.x * cols + c] > 0.f);
  if (threadIdx.x == 0) y[blockIdx.x] = float(seen.load());
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  k_local_atomic<<<rows, 32, 0, stream>>>(x, y, cols);
}
