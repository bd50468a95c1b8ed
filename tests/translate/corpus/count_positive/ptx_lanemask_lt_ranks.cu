// Stream-compaction style ranks: %lanemask_lt from PTX and __popc(ballot & lanemask) give each positive
// element its rank among the warp's positives; the last positive lane of each warp adds rank + 1 (the warp's
// count) into a shared total, which the block writes per row.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ unsigned lanemask_lt() {
  unsigned mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}

__global__ void count_by_ranks(const float* __restrict__ x, int* __restrict__ y, int cols) {
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  __syncthreads();
  const unsigned lt = lanemask_lt();
  for (int base = 0; base < cols; base += blockDim.x) {
    const int c = base + threadIdx.x;
    const bool positive = c < cols && x[(size_t)blockIdx.x * cols + c] > 0.f;
    const unsigned ballot = __ballot_sync(0xffffffffu, positive);
    const int rank = __popc(ballot & lt);
    const bool last = positive && (ballot >> (threadIdx.x & 31)) == 1u;  // no positive above this lane
    if (last) atomicAdd(&total, rank + 1);
  }
  __syncthreads();
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_by_ranks<<<(unsigned)rows, 128, 0, stream>>>(x, y, (int)cols);
}
