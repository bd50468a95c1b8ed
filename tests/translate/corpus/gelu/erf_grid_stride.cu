// The exact GELU with erff, a grid-stride loop, M_SQRT1_2-style constants as `constexpr`.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr float kInvSqrt2 = 0.70710678118654752f;

__global__ void gelu_kernel(const float* __restrict__ x, float* __restrict__ y, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
    const float v = x[i];
    y[i] = 0.5f * v * (1.0f + erff(v * kInvSqrt2));
  }
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  gelu_kernel<<<4, 256, 0, stream>>>(x, y, (int)n);
}
