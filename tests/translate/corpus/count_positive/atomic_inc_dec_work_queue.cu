// Persistent blocks take rows from a work queue: a zeroed counter handed out with atomicInc
// (wrapping at UINT_MAX, i.e. never); inside a block, warps count their share into shared memory
// and a countdown with atomicDec tells the last warp to finish, which publishes the row's count
// (__threadfence_block before the countdown, the count read back atomically).
#include <climits>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_rows_queue(const float* x, int* y, unsigned int* next_row, int rows, int cols) {
  __shared__ unsigned int row_shared;
  __shared__ int count;
  __shared__ unsigned int warps_left;
  const int lane = threadIdx.x % 32;
  for (;;) {
    if (threadIdx.x == 0) {
      row_shared = atomicInc(next_row, UINT_MAX);
      count = 0;
      warps_left = blockDim.x / 32;
    }
    __syncthreads();
    const unsigned int row = row_shared;
    if (row >= (unsigned)rows) return;
    int mine = 0;
    for (int c = threadIdx.x; c < cols; c += blockDim.x) mine += x[(int64_t)row * cols + c] > 0.0f;
    for (int o = 16; o > 0; o /= 2) mine += __shfl_xor_sync(0xffffffffu, mine, o);
    if (lane == 0) {
      atomicAdd(&count, mine);
      __threadfence_block();
      if (atomicDec(&warps_left, blockDim.x / 32) == 1) y[row] = atomicAdd(&count, 0);
    }
    __syncthreads();
  }
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  unsigned int* next_row;
  cudaMallocAsync(&next_row, sizeof(unsigned int), stream);
  cudaMemsetAsync(next_row, 0, sizeof(unsigned int), stream);
  count_rows_queue<<<4, 64, 0, stream>>>(x, y, next_row, (int)rows, (int)cols);
  cudaFreeAsync(next_row, stream);
}
