// Loader and storer functors with pointer members, built in the kernel by brace lists and passed by value to a
// templated __device__ loop (PyTorch's elementwise style): the read-only member takes its buffer's space, the
// written one points into device memory.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

struct Loader {
  const float* src;
  int offset;
  __device__ float operator()(int i) const { return src[offset + i]; }
};

struct Storer {
  float* dst;
  __device__ void operator()(int i, float v) const { dst[i] = v; }
};

template <typename Load, typename Store>
__device__ void apply_gelu(Load load, Store store, int begin, int end, int stride) {
  for (int i = begin; i < end; i += stride) {
    const float v = load(i);
    store(i, 0.5f * v * (1.0f + erff(v * 0.70710678118654752440f)));
  }
}

__global__ void gelu_functors(const float* __restrict__ x, float* __restrict__ y, int n) {
  const Loader load{x, 0};
  Storer store = {y};
  apply_gelu(load, store, blockIdx.x * blockDim.x + threadIdx.x, n, gridDim.x * blockDim.x);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  gelu_functors<<<8, 128, 0, stream>>>(x, y, (int)n);
}
