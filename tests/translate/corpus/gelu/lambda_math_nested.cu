// GELU through lambdas using math that Metal lacks (`erff` as a helper) and `-> float` return types; a lambda that
// captures another lambda (by reference) and one nested in another, called on a grid-stride loop.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void gelu_lambdas(const float* __restrict__ x, float* __restrict__ y, int n) {
  const float inv_sqrt2 = 0.70710678f;
  auto phi = [inv_sqrt2](float v) -> float { return 0.5f * (1.f + erff(v * inv_sqrt2)); };
  auto gelu = [&phi](float v) { return v * phi(v); };
  auto apply = [&](int i) {
    auto store = [&](float v) { y[i] = v; };
    store(gelu(x[i]));
  };
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) apply(i);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  gelu_lambdas<<<4, 128, 0, stream>>>(x, y, (int)n);
}
