// A kernel templated on its block size and element type, launched with explicit template arguments.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK, typename T>
__global__ void __launch_bounds__(BLOCK) axpy_t(const T* x, const T* w, T* y, int n, T alpha) {
  const int i = blockIdx.x * BLOCK + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + w[i];
}

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float alpha, cudaStream_t stream) {
  constexpr int kBlock = 64;
  axpy_t<kBlock, float><<<(n + kBlock - 1) / kBlock, kBlock, 0, stream>>>(x, w, y, n, alpha);
}
