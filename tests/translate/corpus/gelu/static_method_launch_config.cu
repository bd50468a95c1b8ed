// A generic elementwise kernel: a functor in a namespace, an int64_t index type as a template argument, and the grid
// from a launch-config struct's static method and constant.
#include <cuda_runtime.h>
#include <stdint.h>
namespace ops {
struct GeluErf {
  static constexpr float kInvSqrt2 = 0.7071067811865475f;
  __device__ float operator()(float v) const { return 0.5f * v * (1.0f + erff(v * kInvSqrt2)); }
};
}  // namespace ops

struct LaunchConfig {
  static constexpr int kThreads = 256;
  static int blocks(int64_t n) { return int((n + kThreads - 1) / kThreads); }
};

template <typename Op, typename index_t>
__global__ void __launch_bounds__(256) unary_kernel(const float* __restrict__ in, float* __restrict__ out, index_t n, Op op) {
  index_t i = static_cast<index_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  unary_kernel<ops::GeluErf, int64_t><<<LaunchConfig::blocks(n), LaunchConfig::kThreads, 0, stream>>>(x, y, n, ops::GeluErf{});
}
