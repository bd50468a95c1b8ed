// A dtype-generic softmax: `template <typename T>` with `if constexpr (std::is_same<T, float>::value)`
// choosing the fast exponential, std::is_same_v in a static_assert, a `using acc_t =` alias chosen
// by std::conditional, a warp per row with the row's values in registers when short enough.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#include <type_traits>

template <typename T>
__device__ __forceinline__ float to_float(T v) {
  if constexpr (std::is_same<T, float>::value) {
    return v;
  } else {
    return __half2float(v);
  }
}

template <typename T, int kWarpsPerBlock>
__global__ void softmax_warp(const T* __restrict__ x, T* __restrict__ y, int rows, int cols) {
  static_assert(std::is_same_v<T, float> || std::is_same_v<T, __half>, "float or half rows");
  using acc_t = typename std::conditional<std::is_same<T, double>::value, double, float>::type;
  const int row = blockIdx.x * kWarpsPerBlock + threadIdx.y;
  if (row >= rows) return;
  const T* in = x + (int64_t)row * cols;
  acc_t m = -INFINITY;
  for (int c = threadIdx.x; c < cols; c += 32) m = fmaxf(m, to_float(in[c]));
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  acc_t sum = 0;
  for (int c = threadIdx.x; c < cols; c += 32) sum += expf(to_float(in[c]) - m);
  for (int o = 16; o > 0; o >>= 1) sum += __shfl_xor_sync(0xffffffffu, sum, o);
  const acc_t inv = acc_t(1) / sum;
  for (int c = threadIdx.x; c < cols; c += 32) y[(int64_t)row * cols + c] = static_cast<T>(expf(to_float(in[c]) - m) * inv);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kWarps = 4;
  softmax_warp<float, kWarps><<<(rows + kWarps - 1) / kWarps, dim3(32, kWarps), 0, stream>>>(x, y, (int)rows, (int)cols);
}
