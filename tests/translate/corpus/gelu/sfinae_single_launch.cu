// gelu: SFINAE overloads (std::enable_if_t on std::is_same_v) of one __device__ function template for float and
// float4; one grid-stride kernel applying the float4 overload over the body and the float one over the tail.
#include <cuda_runtime.h>
#include <stdint.h>
#include <type_traits>

template <typename T, std::enable_if_t<std::is_same_v<T, float>, int> = 0>
__device__ __forceinline__ T gelu_op(T v) {
  return 0.5f * v * (1.f + erff(v * 0.7071067811865475f));
}

template <typename T, std::enable_if_t<std::is_same_v<T, float4>, int> = 0>
__device__ __forceinline__ T gelu_op(T v) {
  return make_float4(gelu_op(v.x), gelu_op(v.y), gelu_op(v.z), gelu_op(v.w));
}

__global__ void gelu_vec4_tail(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  const int64_t n4 = n / 4;
  const int64_t stride = (int64_t)gridDim.x * blockDim.x;
  const int64_t tid = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
  const float4* x4 = reinterpret_cast<const float4*>(x);
  float4* y4 = reinterpret_cast<float4*>(y);
  for (int64_t i = tid; i < n4; i += stride) y4[i] = gelu_op(x4[i]);
  for (int64_t i = n4 * 4 + tid; i < n; i += stride) y[i] = gelu_op(x[i]);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  gelu_vec4_tail<<<32, 128, 0, stream>>>(x, y, n);
}
