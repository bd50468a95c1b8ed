// rowsum: a variadic __device__ helper summing its arguments with a C++17 fold expression, an `auto f(...) ->
// float` trailing return type, kernels in a nested namespace (`namespace kern::detail`), four independent
// accumulators per thread.
#include <cuda_runtime.h>
#include <stdint.h>

namespace kern::detail {

template <typename... Ts>
__device__ __forceinline__ auto sum_all(Ts... vs) -> float {
  return (vs + ... + 0.f);
}

__device__ __forceinline__ auto warp_reduce(float v) -> float {
  for (int o = 16; o > 0; o >>= 1) v = sum_all(v, __shfl_down_sync(0xffffffffu, v, o));
  return v;
}

__global__ void rowsum_ilp(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const float* xr = x + (size_t)blockIdx.x * cols;
  float a0 = 0.f, a1 = 0.f, a2 = 0.f, a3 = 0.f;
  int c = threadIdx.x;
  for (; c + 96 < cols; c += 128) {
    a0 += xr[c];
    a1 += xr[c + 32];
    a2 += xr[c + 64];
    a3 += xr[c + 96];
  }
  for (; c < cols; c += 32) a0 += xr[c];
  const float s = warp_reduce(sum_all(a0, a1, a2, a3));
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

}  // namespace kern::detail

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  kern::detail::rowsum_ilp<<<(unsigned)rows, 32, 0, stream>>>(x, y, (int)cols);
}
