// <cuda/std/numeric>'s folds over pointer ranges in each address space: `accumulate` with an operation over a thread's
// slice of the row (device memory), `reduce` without and with an initial value and an operation over `__shared__`
// warp sums, `accumulate` over a register array.
#include <cuda/std/functional>
#include <cuda/std/numeric>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kThreads = 128, kWarps = kThreads / 32;

__global__ void rowsum_numeric(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* row = x + (int64_t)blockIdx.x * cols;
  const int per_thread = (cols + kThreads - 1) / kThreads;
  const int first = min(cols, (int)threadIdx.x * per_thread), last = min(cols, first + per_thread);
  float acc = cuda::std::accumulate(row + first, row + last, 0.f, cuda::std::plus<float>());
  for (int offset = 16; offset > 0; offset >>= 1) acc += __shfl_xor_sync(0xffffffffu, acc, offset);
  __shared__ float warp_sums[kWarps];
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = acc;
  __syncthreads();
  if (threadIdx.x == 0) {
    const float halves[2] = {cuda::std::reduce(warp_sums, warp_sums + kWarps / 2),
                             cuda::std::reduce(warp_sums + kWarps / 2, warp_sums + kWarps, 0.f, cuda::std::plus<>{})};
    y[blockIdx.x] = cuda::std::accumulate(halves, halves + 2, 0.f);
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_numeric<<<rows, kThreads, 0, stream>>>(x, y, (int)cols);
}
