// gelu: shader-style helpers of the file named as functions of Metal's standard library that CUDA lacks (saturate,
// fract, step, mix, select, sign: an overload pair and a template, called from a template too), renamed in the
// candidate (`saturate_`), where `using namespace metal` would make each call ambiguous; std::clamp stays Metal's.
#include <cuda_runtime.h>
#include <stdint.h>
#include <algorithm>

__device__ __forceinline__ float saturate(float v) { return fminf(fmaxf(v, 0.f), 1.f); }
__device__ __forceinline__ float fract(float v) { return v - floorf(v); }
__device__ __forceinline__ float step(float edge, float v) { return v < edge ? 0.f : 1.f; }
__device__ __forceinline__ float mix(float a, float b, float t) { return a + (b - a) * t; }
__device__ __forceinline__ float select(float a, float b, bool c) { return c ? b : a; }
__device__ __forceinline__ float sign(float v) { return (v > 0.f) - (v < 0.f); }
__device__ __forceinline__ int sign(int v) { return (v > 0) - (v < 0); }

template <typename T>
__device__ T magnitude(T v) {
  return v * sign(v);
}

__global__ void gelu_shader_helpers(const float* __restrict__ x, float* __restrict__ y, int n) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  const float phi = 0.5f * (1.f + erff(v * 0.70710678f));
  // identities: saturate(phi) == phi, mix(a, a, t) == a, step(0, 1) == 1, fract(2) == 0, magnitude(v) == |v|,
  // sign(3) == 1
  const float g = sign(v) * magnitude(v) * mix(saturate(phi), saturate(phi), 0.3f) * step(0.f, 1.f) + fract(2.f);
  y[i] = select(0.f, std::clamp(g, -1e30f, 1e30f), sign(3) == 1);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  gelu_shader_helpers<<<(n + 127) / 128, 128, 0, stream>>>(x, y, (int)n);
}
