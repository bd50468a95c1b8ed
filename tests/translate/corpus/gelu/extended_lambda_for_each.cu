// An elementwise launcher taking the operation as an extended __device__ lambda (nvcc --extended-lambda), as
// thrust-style code does: `[=] __device__ (int64_t i) { ... }` capturing the tensors, the length and a host local,
// writing the output through its capture; the kernel template calls it per element in a grid-stride loop.
#include <cuda_runtime.h>
#include <cstdint>

template <typename F>
__global__ void for_each_index(int64_t n, F f) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) f(i);
}

template <typename F>
void launch_for_each(int64_t n, F f, cudaStream_t stream) {
  const int threads = 256;
  const int64_t blocks = (n + threads - 1) / threads;
  for_each_index<<<unsigned(blocks < 1024 ? blocks : 1024), threads, 0, stream>>>(n, f);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const float inv_sqrt2 = 1.f / sqrtf(2.f);
  launch_for_each(
      n,
      [=] __device__(int64_t i) {
        if (i >= n) return;  // (never: the loop stops at n)
        const float v = x[i];
        y[i] = 0.5f * v * (1.f + erff(v * inv_sqrt2));
      },
      stream);
}
