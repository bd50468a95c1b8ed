// Compile-time unrolling through a recursive struct template (Unroll<N>::run calls Unroll<N-1>::run, a
// specialization ends it) over a functor with a pointer member, built in the kernel by a brace list.
#include <cuda_runtime.h>
#include <stdint.h>

template <int N>
struct Unroll {
  template <typename F>
  static __device__ __forceinline__ void run(F& f) {
    Unroll<N - 1>::run(f);
    f(N - 1);
  }
};
template <>
struct Unroll<0> {
  template <typename F>
  static __device__ __forceinline__ void run(F&) {}
};

struct Accumulate {
  const float* row;
  int base, cols;
  float sum;
  __device__ void operator()(int k) {
    const int c = base + k;
    if (c < cols) sum += row[c];
  }
};

__global__ void rowsum_unrolled(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float partial[64];
  Accumulate acc{x + (size_t)blockIdx.x * cols, 0, cols, 0.0f};
  for (int base = threadIdx.x * 4; base < cols; base += blockDim.x * 4) {
    acc.base = base;
    Unroll<4>::run(acc);
  }
  partial[threadIdx.x] = acc.sum;
  __syncthreads();
  for (int s = 32; s > 0; s >>= 1) {
    if (threadIdx.x < s) partial[threadIdx.x] += partial[threadIdx.x + s];
    __syncthreads();
  }
  if (threadIdx.x == 0) y[blockIdx.x] = partial[0];
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_unrolled<<<(unsigned)rows, 64, 0, stream>>>(x, y, (int)cols);
}
