// Positives of a row counted in a block's cuda::atomic<int, cuda::thread_scope_block> in shared memory (thread 0
// stores 0, every thread fetch_adds its count, thread 0 exchanges the total for 0); a shared array of per-warp
// cuda::atomic<unsigned> keeps each warp's largest count (store, fetch_max, load), and the row's result is written
// through a cuda::std::atomic_ref temporary only where some warp saw a positive.
#include <cuda/atomic>
#include <cuda/std/atomic>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_atomic_objects(const float* x, int* y, int cols) {
  __shared__ cuda::atomic<int, cuda::thread_scope_block> row_count;
  __shared__ cuda::atomic<unsigned, cuda::thread_scope_block> warp_most[4];
  if (threadIdx.x == 0) row_count.store(0, cuda::memory_order_relaxed);
  if (threadIdx.x < 4) warp_most[threadIdx.x].store(0u);
  __syncthreads();
  const float* row = x + (int64_t)blockIdx.x * cols;
  int mine = 0;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) mine += row[c] > 0.f;
  row_count.fetch_add(mine, cuda::memory_order_relaxed);
  warp_most[threadIdx.x / 32].fetch_max(unsigned(mine));
  __syncthreads();
  if (threadIdx.x == 0) {
    y[blockIdx.x] = 0;
    const unsigned most = warp_most[0].load() | warp_most[1].load() | warp_most[2].load() | warp_most[3].load();
    const int total = row_count.exchange(0);  // read, and left at 0
    if (most > 0u) cuda::std::atomic_ref<int>(y[blockIdx.x]).store(total + row_count.load());
  }
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_atomic_objects<<<rows, 128, 0, stream>>>(x, y, cols);
}
