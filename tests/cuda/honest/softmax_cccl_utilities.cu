// task: softmax
// libcu++'s utilities as current CCCL code uses them: cuda::ceil_div (<cuda/cmath>) for the grid, a
// cuda::std::span per row, cuda::maximum and cuda::std::plus as the operators of a templated __shfl_xor_sync
// butterfly, the pass chosen with if constexpr; a warp per row under __launch_bounds__(256, 2).
#include <cuda/cmath>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/span>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kWarp = 32;
constexpr int kThreads = 256;
constexpr int kRowsPerBlock = kThreads / kWarp;
static_assert(kThreads % kWarp == 0, "a block holds whole warps");

template <typename Op>
__device__ __forceinline__ float warp_all_reduce(float v, Op op) {
#pragma unroll
  for (int offset = kWarp / 2; offset > 0; offset >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, offset));
  return v;
}

// The row's maximum (kSumOfExps false) or its sum of exp(x - m) (true), on every lane.
template <bool kSumOfExps>
__device__ float row_reduce(cuda::std::span<const float> row, float m, int lane) {
  float acc = kSumOfExps ? 0.f : -INFINITY;
  for (size_t c = lane; c < row.size(); c += kWarp) {
    if constexpr (kSumOfExps) acc += __expf(row[c] - m);
    else acc = fmaxf(acc, row[c]);
  }
  if constexpr (kSumOfExps) return warp_all_reduce(acc, cuda::std::plus<float>{});
  else return warp_all_reduce(acc, cuda::maximum<float>{});
}

__global__ void __launch_bounds__(kThreads, 2)
softmax_span_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  const int lane = threadIdx.x % kWarp;
  const int64_t r = int64_t(blockIdx.x) * kRowsPerBlock + threadIdx.x / kWarp;
  if (r >= rows) return;
  const cuda::std::span<const float> row(x + r * cols, size_t(cols));
  const float m = row_reduce<false>(row, 0.f, lane);
  const float inv = 1.f / row_reduce<true>(row, m, lane);
  float* out = y + r * cols;
  for (size_t c = lane; c < row.size(); c += kWarp) out[c] = __expf(row[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const unsigned blocks = unsigned(cuda::ceil_div(rows, int64_t(kRowsPerBlock)));
  softmax_span_kernel<<<blocks, kThreads, 0, stream>>>(x, y, rows, cols);
}
