// Two ballots per iteration (a warp covers 64 columns) packed into one unsigned long long, counted by
// __popcll; warps' counts summed by atomicAdd on a shared int; 2 rows per block by threadIdx.y.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void count_rows_64(const float* __restrict__ x, int* __restrict__ y, int rows, int cols) {
  __shared__ int block_count[2];
  const int row = blockIdx.x * blockDim.y + threadIdx.y;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  if (threadIdx.x == 0) block_count[threadIdx.y] = 0;
  __syncthreads();
  if (row < rows) {
    const float* xr = x + (size_t)row * cols;
    int total = 0;
    for (int base = warp * 64; base < cols; base += 64 * (blockDim.x / 32)) {
      const int c0 = base + lane, c1 = base + 32 + lane;
      const unsigned lo = __ballot_sync(0xffffffffu, c0 < cols && xr[c0] > 0.f);
      const unsigned hi = __ballot_sync(0xffffffffu, c1 < cols && xr[c1] > 0.f);
      const unsigned long long both = ((unsigned long long)hi << 32) | lo;
      total += __popcll(both);
    }
    if (lane == 0) atomicAdd(&block_count[threadIdx.y], total);
  }
  __syncthreads();
  if (threadIdx.x == 0 && row < rows) y[row] = block_count[threadIdx.y];
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 block(64, 2);
  count_rows_64<<<(unsigned)((rows + 1) / 2), block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
