// gelu: compile-time recursion, which the port's recursion check leaves to the compiler: a variadic __device__
// template calling itself with a shorter pack (Horner's polynomial over coefficients), as in hand-written fast-math
// kernels; erf by Abramowitz-Stegun 7.1.26 is too coarse, so erff for the value and the polynomial for a zero-valued check.
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T>
__device__ __forceinline__ T horner(T) { return T(0); }

template <typename T, typename C0, typename... Cs>
__device__ __forceinline__ T horner(T x, C0 c0, Cs... cs) {
  return fmaf(x, horner(x, cs...), T(c0));
}

template <typename... Ts>
__device__ __forceinline__ float sum_all(Ts... vs) { return (0.f + ... + vs); }

__global__ void gelu_variadic(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float v = x[i];
    // p(t) = 1 + 2t + 3t^2 evaluated at t = 0 -> 1
    const float one = horner(0.f, 1.f, 2.f, 3.f);
    const float g = 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
    y[i] = sum_all(g * one, 0.f, -0.f);
  }
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  gelu_variadic<<<24, 128, 0, stream>>>(x, y, n);
}
