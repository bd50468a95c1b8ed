// std::tuple in device code (cuda::std::tuple): Metal's library has none, and the port writes only a pair.
#include <cuda/std/tuple>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ cuda::std::tuple<float, int> sum_and_count(const float* v, int n) {
  float s = 0.f;
  for (int i = 0; i < n; ++i) s += v[i];
  return cuda::std::make_tuple(s, n);
}

__global__ void rowsum_kernel(const float* x, float* y, int rows, int cols) {
  const int r = blockIdx.x * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  const cuda::std::tuple<float, int> t = sum_and_count(x + (int64_t)r * cols, cols);
  y[r] = cuda::std::get<0>(t);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_kernel<<<(rows + 63) / 64, 64, 0, stream>>>(x, y, (int)rows, (int)cols);
}
