// A template over the block size: __reduce_add_sync per warp, __syncthreads, warp totals summed by
// thread 0 with min() bounds, the block size chosen by the host from the row length.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK>
__global__ void count_block(const float* __restrict__ x, int* __restrict__ y, int cols) {
  __shared__ int warp_counts[BLOCK / 32];
  const float* row = x + (int64_t)blockIdx.x * cols;
  unsigned count = 0;
  for (int c = threadIdx.x; c < cols; c += BLOCK) count += row[c] > 0.f ? 1u : 0u;
  count = __reduce_add_sync(0xffffffffu, count);
  if (threadIdx.x % 32 == 0) warp_counts[threadIdx.x / 32] = (int)count;
  __syncthreads();
  if (threadIdx.x == 0) {
    int total = 0;
    for (int w = 0; w < min(BLOCK / 32, (cols + 31) / 32 + BLOCK); ++w) total += warp_counts[w];
    y[blockIdx.x] = total;
  }
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (cols >= 512)
    count_block<256><<<rows, 256, 0, stream>>>(x, y, (int)cols);
  else
    count_block<64><<<rows, 64, 0, stream>>>(x, y, (int)cols);
}
