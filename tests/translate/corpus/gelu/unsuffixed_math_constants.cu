// GELU with CUDA's unsuffixed float overloads (`erf`, `fabs`, `fmax`, `isnan`) and math_constants.h
// (`CUDART_SQRT_HALF_F`, `CUDART_NAN_F`), far tails saturated as libraries do.
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

__global__ void gelu_unsuffixed(const float* __restrict__ x, float* __restrict__ y, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float v = x[i];
  float r = fabs(v) > 10.0f ? fmax(v, 0.0f) : 0.5f * v * (1.0f + erf(v * CUDART_SQRT_HALF_F));
  if (isnan(v)) r = CUDART_NAN_F;
  y[i] = r;
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  gelu_unsuffixed<<<(unsigned)((n + 63) / 64), 64, 0, stream>>>(x, y, (unsigned)n);
}
