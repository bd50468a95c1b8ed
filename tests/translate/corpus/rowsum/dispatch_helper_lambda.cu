// A dispatch helper given a lambda that launches (`template <typename F> void dispatch_block(int64_t cols, F&& f)` calling
// `f(std::integral_constant<int, 256>{})` in one branch and 64 in the other), as DISPATCH_* helpers do: each call of the
// lambda through the helper's parameter is a launcher call, its block size the constant's value.
#include <cuda_runtime.h>
#include <cstdint>
#include <type_traits>

template <int BLOCK>
__global__ void rowsum_block(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float partial[BLOCK];
  float s = 0.f;
  for (int64_t i = threadIdx.x; i < cols; i += BLOCK) s += x[blockIdx.x * cols + i];
  partial[threadIdx.x] = s;
  __syncthreads();
  for (int w = BLOCK / 2; w > 0; w >>= 1) {
    if (threadIdx.x < w) partial[threadIdx.x] += partial[threadIdx.x + w];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

template <typename F>
void dispatch_block(int64_t cols, F&& f) {
  if (cols > 256)
    f(std::integral_constant<int, 256>{});
  else
    f(std::integral_constant<int, 64>{});
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  dispatch_block(cols, [&](auto block) {
    constexpr int kBlock = decltype(block)::value;
    rowsum_block<kBlock><<<unsigned(rows), kBlock, 0, stream>>>(x, y, cols);
  });
}
