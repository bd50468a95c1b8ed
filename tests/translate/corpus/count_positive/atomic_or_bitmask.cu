// count_positive: a block per row sets one bit per positive element in a __shared__ bitmask with atomicOr
// (words of 32 columns), chunk by chunk, then counts the words with __popc and reduces with atomicAdd on a
// __shared__ counter; atomicExch clears the words between chunks.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 128;
constexpr int kWords = kThreads / 32 * 4;  // 512 columns per chunk

__global__ void count_bitmask(const float* __restrict__ x, int* __restrict__ y, int cols) {
  __shared__ unsigned bits[kWords];
  __shared__ int total;
  if (threadIdx.x == 0) total = 0;
  const float* xr = x + (size_t)blockIdx.x * cols;
  for (int base = 0; base < cols; base += kWords * 32) {
    for (int w = threadIdx.x; w < kWords; w += kThreads) atomicExch(&bits[w], 0u);
    __syncthreads();
    for (int j = threadIdx.x; j < kWords * 32; j += kThreads) {
      const int c = base + j;
      if (c < cols && xr[c] > 0.f) atomicOr(&bits[j >> 5], 1u << (j & 31));
    }
    __syncthreads();
    for (int w = threadIdx.x; w < kWords; w += kThreads) {
      const int p = __popc(bits[w]);
      if (p) atomicAdd(&total, p);
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = total;
}

extern "C" void count_positive(const float* x, int* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  count_bitmask<<<(unsigned)rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
