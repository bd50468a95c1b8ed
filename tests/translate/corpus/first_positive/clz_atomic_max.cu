// The first lane of a ballot from __clz(__brev(mask)), and the earliest column kept with atomicMax on
// a shared int (the largest cols - c).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void first_clz(const float* __restrict__ x, int* __restrict__ y, int cols) {
  __shared__ int best;
  if (threadIdx.x == 0) best = 0;
  __syncthreads();
  const int lane = threadIdx.x & 31;
  for (int base = (threadIdx.x & ~31); base < cols; base += blockDim.x) {
    const int c = base + lane;
    const unsigned mask = __ballot_sync(0xffffffffu, c < cols && x[(size_t)blockIdx.x * cols + c] > 3.f);
    if (mask != 0) {
      const int first = __clz(__brev(mask));  // the lowest set bit
      if (lane == first) atomicMax(&best, cols - c);
      break;
    }
  }
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = best > 0 ? cols - best : -1;
}

extern "C" void first_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  first_clz<<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
