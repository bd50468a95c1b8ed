// An entry whose input parameter is declared without const (`float* x`), passed as it is to a kernel whose input
// parameter has no const either, next to an erff-based GELU in a grid-stride loop.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void gelu_kernel(float* in, float* out, int64_t n) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float v = in[i];
    out[i] = 0.5f * v * (1.0f + erff(v * 0.70710678118654752f));
  }
}

extern "C" void gelu(float* x, float* y, int64_t n, cudaStream_t stream) {
  const int threads = 256;
  const int64_t blocks = (n + threads - 1) / threads;
  gelu_kernel<<<(unsigned)(blocks < 1024 ? blocks : 1024), threads, 0, stream>>>(x, y, n);
}
