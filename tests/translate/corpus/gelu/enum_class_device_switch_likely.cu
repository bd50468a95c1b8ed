// Megatron-style fused activation chosen by an enum class template parameter, a device switch over
// it, C++20 [[likely]]/[[unlikely]] on the grid-stride loop's branches, __forceinline__ helpers.
#include <cuda_runtime.h>
#include <stdint.h>

enum class Activation : int { kIdentity = 0, kGeluErf = 1, kGeluTanh = 2 };

__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.f + erff(v * 0.70710678118654752f)); }
__device__ __forceinline__ float gelu_tanh(float v) {
  const float k0 = 0.7978845608028654f, k1 = 0.044715f;
  return 0.5f * v * (1.f + tanhf(k0 * (v + k1 * v * v * v)));
}

template <Activation kAct>
__device__ __forceinline__ float activate(float v) {
  switch (kAct) {
    case Activation::kGeluErf: return gelu_erf(v);
    case Activation::kGeluTanh: return gelu_tanh(v);
    default: return v;
  }
}

template <Activation kAct>
__global__ void fused_activation(const float* __restrict__ in, float* __restrict__ out, int64_t n) {
  const int64_t stride = (int64_t)blockDim.x * gridDim.x;
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float v = in[i];
    if (v > -10.f) [[likely]] {
      out[i] = activate<kAct>(v);
    } else [[unlikely]] {
      out[i] = 0.f;
    }
  }
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const Activation act = Activation::kGeluErf;
  const int threads = 256;
  const int blocks = (int)((n + threads - 1) / threads);
  switch (act) {
    case Activation::kGeluTanh: fused_activation<Activation::kGeluTanh><<<blocks, threads, 0, stream>>>(x, y, n); break;
    case Activation::kGeluErf: fused_activation<Activation::kGeluErf><<<blocks, threads, 0, stream>>>(x, y, n); break;
    default: fused_activation<Activation::kIdentity><<<blocks, threads, 0, stream>>>(x, y, n); break;
  }
}
