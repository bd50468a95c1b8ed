// A vectorized elementwise kernel: the first n / 4 * 4 elements as float4 through reinterpret_cast and
// __ldg, the tail by the first threads of the grid; a grid-stride loop over gridDim.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__device__ __forceinline__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * 0.70710678118654752f)); }

__global__ void __launch_bounds__(256) gelu_vec4_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  const int64_t n4 = n / 4;
  const int64_t stride = (int64_t)blockDim.x * gridDim.x;
  const float4* __restrict__ x4 = reinterpret_cast<const float4*>(x);
  float4* __restrict__ y4 = reinterpret_cast<float4*>(y);
  for (int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x; i < n4; i += stride) {
    float4 v = __ldg(&x4[i]);
    v.x = gelu_erf(v.x);
    v.y = gelu_erf(v.y);
    v.z = gelu_erf(v.z);
    v.w = gelu_erf(v.w);
    y4[i] = v;
  }
  const int64_t tail = n4 * 4 + (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (tail < n) y[tail] = gelu_erf(__ldg(x + tail));
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const int threads = 256;
  int64_t blocks = (n / 4 + threads - 1) / threads;
  if (blocks < 1) blocks = 1;
  if (blocks > 1024) blocks = 1024;
  gelu_vec4_kernel<<<(unsigned)blocks, threads, 0, stream>>>(x, y, n);
}
