// A lambda of the entry that launches whatever kernel it is given (`auto kernel`), its thread count a parameter too:
// a vectorized kernel where n is a multiple of 4, a scalar one otherwise.
#include <cuda_runtime.h>
#include <cstdint>

__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678f)); }

__global__ void gelu_vec4(const float4* __restrict__ x, float4* __restrict__ y, int64_t quads) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= quads) return;
  const float4 v = x[i];
  y[i] = make_float4(gelu_erf(v.x), gelu_erf(v.y), gelu_erf(v.z), gelu_erf(v.w));
}

__global__ void gelu_scalar(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  const int64_t i = int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = gelu_erf(x[i]);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  auto run = [&](auto kernel, int threads, int64_t items, auto in, auto out) {
    const unsigned blocks = unsigned((items + threads - 1) / threads);
    kernel<<<blocks, threads, 0, stream>>>(in, out, items);
  };
  if (n % 4 == 0)
    run(gelu_vec4, 256, n / 4, reinterpret_cast<const float4*>(x), reinterpret_cast<float4*>(y));
  else
    run(gelu_scalar, 128, n, x, y);
}
