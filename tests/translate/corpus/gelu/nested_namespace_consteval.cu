// C++17/20 spellings: a nested namespace definition `namespace kernels::detail`, an `inline constexpr`
// variable, a `consteval` helper giving the unroll factor, a variable template for the vector width.
#include <cuda_runtime.h>
#include <stdint.h>

namespace kernels::detail {
inline constexpr float kInvSqrt2 = 0.70710678118654752440f;
template <typename T> inline constexpr int kVecWidth = 16 / sizeof(T);
consteval int unroll_for(int bytes) { return bytes >= 16 ? 4 : 1; }

__device__ __forceinline__ float gelu(float v) { return 0.5f * v * erfcf(-v * kInvSqrt2); }
}  // namespace kernels::detail

namespace kernels {
template <int kUnroll>
__global__ void gelu_unrolled(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  const int64_t base = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * kUnroll;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int64_t i = base + u;
    if (i < n) y[i] = detail::gelu(x[i]);
  }
}
}  // namespace kernels

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  constexpr int kUnroll = kernels::detail::unroll_for(kernels::detail::kVecWidth<float> * sizeof(float));
  const int threads = 128;
  const int64_t per_block = (int64_t)threads * kUnroll;
  kernels::gelu_unrolled<kUnroll><<<(unsigned)((n + per_block - 1) / per_block), threads, 0, stream>>>(x, y, n);
}
