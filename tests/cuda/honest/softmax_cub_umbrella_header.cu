// task: softmax
// A block per row reduced through CUB's BlockReduce, included by CUB's umbrella header as most code that uses CUB
// does (<cub/cub.cuh> also brings NVTX's ranges, whose injection loader imports dlopen unless NVTX is compiled
// out), with libcu++'s cuda::maximum as the max operator.
#include <cub/cub.cuh>
#include <cuda/functional>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads) softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  using BlockReduce = cub::BlockReduce<float, kThreads>;
  __shared__ typename BlockReduce::TempStorage temp;
  __shared__ float row_max, row_sum;
  const float* in = x + int64_t(blockIdx.x) * cols;
  float* out = y + int64_t(blockIdx.x) * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, in[c]);
  m = BlockReduce(temp).Reduce(m, cuda::maximum<>{});
  if (threadIdx.x == 0) row_max = m;
  __syncthreads();
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) s += __expf(in[c] - row_max);
  s = BlockReduce(temp).Sum(s);
  if (threadIdx.x == 0) row_sum = s;
  __syncthreads();
  const float inv = 1.f / row_sum;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) out[c] = __expf(in[c] - row_max) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows > 0) softmax_rows<<<unsigned(rows), kThreads, 0, stream>>>(x, y, cols);
}
