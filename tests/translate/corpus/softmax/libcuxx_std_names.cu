// One warp per row through libcu++'s cuda::std names: cuda::std::numeric_limits<float>::lowest(), cuda::std::max,
// cuda::std::exp, cuda::std::swap, cuda::std::is_same_v in an if constexpr.
#include <cuda/std/cmath>
#include <cuda/std/functional>  // cuda::std::max (libcu++ has no <cuda/std/algorithm>)
#include <cuda/std/limits>
#include <cuda/std/type_traits>
#include <cuda/std/utility>
#include <cuda_runtime.h>
#include <stdint.h>

template <typename T>
__device__ T warp_max(T v) {
  for (int o = 16; o; o >>= 1) v = cuda::std::max(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <typename T>
__global__ void softmax_libcuxx(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * 2 + threadIdx.y;
  if (row >= rows) return;
  const T* xr = x + (int64_t)row * cols;
  T* yr = y + (int64_t)row * cols;
  T m = cuda::std::numeric_limits<T>::lowest();
  for (int c = threadIdx.x; c < cols; c += 32) m = cuda::std::max(m, xr[c]);
  m = warp_max(m);
  T even = T(0), odd = T(0);  // sums of even and odd columns
  for (int c = threadIdx.x; c < cols; c += 32) {
    even += cuda::std::exp(xr[c] - m);
    cuda::std::swap(even, odd);
  }
  T s = even + odd;
  for (int o = 16; o; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  if constexpr (cuda::std::is_same_v<T, float>) s = 1.0f / s;
  for (int c = threadIdx.x; c < cols; c += 32) yr[c] = cuda::std::exp(xr[c] - m) * s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  softmax_libcuxx<float><<<(rows + 1) / 2, dim3(32, 2), 0, stream>>>(x, y, (int)rows, (int)cols);
}
