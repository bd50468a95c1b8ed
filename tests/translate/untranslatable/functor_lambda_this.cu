// Untranslatable: a functor's operator(), called through its kernel's template parameter, holding a lambda capturing
// `this` (line 16); the lambda's struct would need a pointer to the functor.
#include <cuda_runtime.h>
#include <stdint.h>

struct RowSumFunctor {
  const float* __restrict__ x;
  float* __restrict__ y;
  int cols;
  float scale;

  __device__ float load(const float* row, int c) const { return row[c] * scale; }

  __device__ void operator()(int r) const {
    const float* row = x + (int64_t)r * cols;
    auto partial = [this, row](int lane) {
      float s = 0.f;
      for (int c = lane; c < cols; c += 32) s += load(row, c);
      return s;
    };
    float s = partial(threadIdx.x);
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffff, s, off);
    auto store = [=](float v) { if (threadIdx.x == 0) this->y[r] = v; };
    store(s);
  }
};

template <typename F>
__global__ void for_each_row(F f, int rows) {
  const int r = blockIdx.x;
  if (r < rows) f(r);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  RowSumFunctor f{x, y, (int)cols, 1.0f};
  for_each_row<<<rows, 32, 0, stream>>>(f, (int)rows);
}
