// A warp per row, 4 rows per block; lanes past the row's end sit out of the ballot by __activemask(),
// __ballot_sync over the active mask, __popc, __syncwarp(mask) before lane 0 reads the warp's shared slot.
#include <cuda_runtime.h>
#include <stdint.h>

#define WARP_SIZE 32
#define ROWS_PER_BLOCK 4

__device__ __forceinline__ unsigned lane_id() { return threadIdx.x & (WARP_SIZE - 1); }

__global__ void count_rows(const float* __restrict__ x, int* __restrict__ y, int rows, int cols) {
  __shared__ int partial[ROWS_PER_BLOCK][WARP_SIZE];
  const int warp = threadIdx.x / WARP_SIZE;
  const int row = blockIdx.x * ROWS_PER_BLOCK + warp;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  int total = 0;
  for (int base = 0; base < cols; base += WARP_SIZE) {
    const int c = base + lane_id();
    if (c < cols) {
      const unsigned active = __activemask();
      const unsigned votes = __ballot_sync(active, xr[c] > 0.f);
      total += __popc(votes);
    }
  }
  // every lane holds the same running total for the lanes that ran each round; lane 0 ran every round
  partial[warp][lane_id()] = total;
  __syncwarp(0xffffffffu);
  if (lane_id() == 0) y[row] = partial[warp][0];
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int blocks = (int)((rows + ROWS_PER_BLOCK - 1) / ROWS_PER_BLOCK);
  count_rows<<<blocks, ROWS_PER_BLOCK * WARP_SIZE, 0, stream>>>(x, y, (int)rows, (int)cols);
}
