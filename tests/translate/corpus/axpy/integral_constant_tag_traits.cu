// axpy: a kernel templated on its unroll factor, given as std::integral_constant through a launcher, with
// type traits choosing the load path (std::is_floating_point, std::remove_cv_t, std::is_same, std::conditional_t,
// std::is_arithmetic_v, std::false_type and true_type), as header-only CUDA libraries write their dispatch.
#include <cuda_runtime.h>
#include <stdint.h>
#include <type_traits>

template <typename T>
struct is_float_like : std::integral_constant<bool, std::is_floating_point<std::remove_cv_t<T>>::value> {};

template <typename T>
struct vector_loads : std::false_type {};

template <typename T, typename Unroll>
__global__ void axpy_unrolled(int n, float a, const T* __restrict__ x, const T* __restrict__ w, T* __restrict__ y, Unroll) {
  static_assert(is_float_like<T>::value, "floating point only");
  static_assert(std::is_arithmetic_v<T>, "arithmetic");
  static_assert(!vector_loads<T>::value && std::true_type::value, "scalar loads");
  using Acc = std::conditional_t<std::is_same<std::remove_cv_t<T>, float>::value, float, double>;
  constexpr int kUnroll = Unroll::value;
  const int base = (blockIdx.x * blockDim.x + threadIdx.x) * kUnroll;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const int i = base + u;
    if (i < n) y[i] = (T)((Acc)a * (Acc)x[i] + (Acc)w[i]);
  }
}

template <int N> using unroll_t = std::integral_constant<int, N>;

extern "C" void axpy(const float* x, const float* w, float* y, int64_t n, float a, cudaStream_t stream) {
  const int threads = 256;
  const int per_block = threads * unroll_t<4>::value;
  axpy_unrolled<<<(int)((n + per_block - 1) / per_block), threads, 0, stream>>>((int)n, a, x, w, y, unroll_t<4>{});
}
