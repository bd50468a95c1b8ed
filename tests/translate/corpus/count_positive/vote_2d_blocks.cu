// Warp votes: __ballot_sync + __popc counts, __any_sync skips a warp's empty chunk, __all_sync takes
// the full-warp shortcut; 2-D blocks (threadIdx.y is the row within the block).
#include <cuda_runtime.h>
#include <stdint.h>

#define FULL_MASK 0xffffffffu

__global__ void count_vote(const float* x, int* y, int rows, int cols) {
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;  // a whole warp (one row) leaves together
  int count = 0;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + threadIdx.x;
    const bool positive = c < cols && x[(size_t)row * cols + c] > 0.f;
    if (!__any_sync(FULL_MASK, positive)) continue;
    if (__all_sync(FULL_MASK, positive)) {
      count += 32;
      continue;
    }
    count += __popc(__ballot_sync(FULL_MASK, positive));
  }
  if (threadIdx.x == 0) y[row] = count;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dim3 block(32, 4);
  dim3 grid((rows + block.y - 1) / block.y);
  count_vote<<<grid, block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
