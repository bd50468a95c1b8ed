// libcu++'s utilities in a row sum: a cuda::std::span per row split in halves by subspan/first/last, reduced by a
// templated warp all-reduce given cuda::std::plus<> (the transparent one), cuda::maximum<float> and
// cuda::minimum<float> function objects; cuda::ceil_div for the grid and for a loop bound in the kernel.
#include <cuda/cmath>
#include <cuda/functional>
#include <cuda/std/functional>
#include <cuda/std/span>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kWarps = 4;

template <typename T, typename Op>
__device__ T warp_all_reduce(T v, Op op) {
  for (int o = 16; o > 0; o /= 2) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

__device__ float half_sum(cuda::std::span<const float> part, int lane) {
  float s = 0.0f;
  const int steps = int(cuda::ceil_div(part.size(), size_t(32)));
  for (int i = 0; i < steps; ++i) {
    const size_t c = size_t(i) * 32 + lane;
    if (c < part.size()) s += part[c];
  }
  return warp_all_reduce(s, cuda::std::plus<>{});
}

__global__ void rowsum_span(const float* __restrict__ x, float* __restrict__ y, int64_t rows, int64_t cols) {
  const int lane = threadIdx.x % 32;
  const int64_t r = int64_t(blockIdx.x) * kWarps + threadIdx.x / 32;
  if (r >= rows) return;
  const cuda::std::span<const float> row(x + r * cols, size_t(cols));
  const size_t half = row.size() / 2;
  const float front = half_sum(row.first(half), lane), back = half_sum(row.last(row.size() - half), lane);
  const float middle = half_sum(row.subspan(half, 0), lane);  // empty: 0
  // both halves' sums are the same on every lane: the max and min of them are the two sums
  const float hi = warp_all_reduce(front, cuda::maximum<float>{}), lo = warp_all_reduce(back, cuda::minimum<float>{});
  if (lane == 0) y[r] = cuda::std::multiplies<float>{}(1.0f, front + back) + middle + 0.0f * (hi - lo);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const unsigned blocks = unsigned(cuda::ceil_div(rows, int64_t(kWarps)));
  rowsum_span<<<blocks, kWarps * 32, 0, stream>>>(x, y, rows, cols);
}
