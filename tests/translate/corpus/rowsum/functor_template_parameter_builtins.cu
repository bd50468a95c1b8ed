// A functor given to a templated kernel (`template <typename F> __global__ void k(F f) { f(r); }`): its
// operator() reads threadIdx directly and through a `[&]` lambda over its locals, so the call through the
// kernel's template parameter passes the built-in variable.
#include <cuda_runtime.h>
#include <stdint.h>

struct RowSumFunctor {
  const float* __restrict__ x;
  float* __restrict__ y;
  int cols;

  __device__ void operator()(int r) const {
    const float* row = x + (int64_t)r * cols;
    const int n = cols;
    auto lane_sum = [&]() {
      float s = 0.f;
      for (int c = threadIdx.x; c < n; c += 32) s += row[c];
      return s;
    };
    float s = lane_sum();
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffff, s, off);
    if (threadIdx.x == 0) y[r] = s;
  }
};

template <typename F>
__global__ void for_each_row(F f, int rows) {
  const int r = blockIdx.x;
  if (r < rows) f(r);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  RowSumFunctor f{x, y, (int)cols};
  for_each_row<<<rows, 32, 0, stream>>>(f, (int)rows);
}
