// A function-pointer template parameter given `&gelu_exact` (a plain __device__ function, its address taken) by a
// templated launcher, and an integer template parameter after it: the function reached only through the
// parameter, and a helper it calls, are still ported.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__device__ float phi(float x) { return 0.5f * (1.0f + erff(x * 0.70710678118654752440f)); }
__device__ float gelu_exact(float x) { return x * phi(x); }

template <float (*OP)(float), int UNROLL>
__global__ void map_kernel(const float* __restrict__ in, float* __restrict__ out, int n) {
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * UNROLL;
#pragma unroll
  for (int u = 0; u < UNROLL; ++u)
    if (base + u < n) out[base + u] = OP(in[base + u]);
}

template <float (*OP)(float)>
void launch_map(const float* in, float* out, int64_t n, cudaStream_t stream) {
  constexpr int kUnroll = 4, kBlock = 128;
  const int64_t threads = (n + kUnroll - 1) / kUnroll;
  map_kernel<OP, kUnroll><<<(unsigned)((threads + kBlock - 1) / kBlock), kBlock, 0, stream>>>(in, out, (int)n);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) { launch_map<&gelu_exact>(x, y, n, stream); }
