// task: softmax
// A warp per row with CUB's WarpReduce: a maximum through a functor of our own, then the sum, each result
// broadcast from lane 0 with a shuffle.
#include <cub/warp/warp_reduce.cuh>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kWarpsPerBlock = 4;

struct MaxOp {
  __device__ float operator()(float a, float b) const { return fmaxf(a, b); }
};

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  using WarpReduce = cub::WarpReduce<float>;
  __shared__ typename WarpReduce::TempStorage temp[kWarpsPerBlock];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + warp;
  if (row >= rows) return;
  const float* in = x + row * cols;
  float* out = y + row * cols;
  float m = -INFINITY;
  for (int64_t c = lane; c < cols; c += 32) m = fmaxf(m, in[c]);
  m = __shfl_sync(0xffffffffu, WarpReduce(temp[warp]).Reduce(m, MaxOp()), 0);
  __syncwarp();  // the TempStorage is reused
  float s = 0.f;
  for (int64_t c = lane; c < cols; c += 32) s += __expf(in[c] - m);
  s = __shfl_sync(0xffffffffu, WarpReduce(temp[warp]).Sum(s), 0);
  const float inv = 1.f / s;
  for (int64_t c = lane; c < cols; c += 32) out[c] = __expf(in[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const unsigned blocks = unsigned((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  softmax_kernel<<<blocks, 32 * kWarpsPerBlock, 0, stream>>>(x, y, rows, cols);
}
