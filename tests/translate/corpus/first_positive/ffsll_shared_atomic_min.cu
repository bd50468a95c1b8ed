// First hit per row: 64 columns per warp step as one 64-bit mask, __ffsll for its first bit,
// the block's answer by atomicMin on a shared int initialized to INT_MAX, early exit via __syncthreads_or.
#include <cuda_runtime.h>
#include <climits>
#include <stdint.h>

__global__ void first_hit_64(const float* __restrict__ x, int* __restrict__ y, int cols) {
  __shared__ int first;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const float* xr = x + (size_t)blockIdx.x * cols;
  if (threadIdx.x == 0) first = INT_MAX;
  __syncthreads();
  for (int round = 0; round * 64 * warps < cols; ++round) {
    const int base = (round * warps + warp) * 64;
    const int c0 = base + lane, c1 = base + 32 + lane;
    const unsigned lo = __ballot_sync(0xffffffffu, c0 < cols && xr[c0] > 3.f);
    const unsigned hi = __ballot_sync(0xffffffffu, c1 < cols && xr[c1] > 3.f);
    const unsigned long long mask = ((unsigned long long)hi << 32) | lo;
    if (lane == 0 && mask != 0ull) atomicMin(&first, base + __ffsll((long long)mask) - 1);
    if (__syncthreads_or(first != INT_MAX)) break;
  }
  if (threadIdx.x == 0) y[blockIdx.x] = first == INT_MAX ? -1 : first;
}

extern "C" void first_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_hit_64<<<(unsigned)rows, 128, 0, stream>>>(x, y, (int)cols);
}
