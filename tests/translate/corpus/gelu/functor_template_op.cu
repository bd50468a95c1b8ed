// An elementwise map over a functor type (`template <class Op>`), the functor passed by value as a
// default-constructed temporary and called through its const operator(); vectorized float4 body
// with a scalar tail.
#include <cuda_runtime.h>
#include <math_constants.h>
#include <stdint.h>

struct GeluErfOp {
  __device__ __forceinline__ float operator()(float v) const { return 0.5f * v * (1.0f + erff(v * CUDART_SQRT_HALF_F)); }
};

template <class Op>
__global__ void unary_map(const float* __restrict__ in, float* __restrict__ out, int64_t n, Op op) {
  const int64_t i = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) * 4;
  if (i + 3 < n) {
    const float4 v = *reinterpret_cast<const float4*>(in + i);
    *reinterpret_cast<float4*>(out + i) = make_float4(op(v.x), op(v.y), op(v.z), op(v.w));
  } else {
    for (int64_t j = i; j < n; ++j) out[j] = op(in[j]);
  }
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const int threads = 256;
  const int64_t blocks = (n + 4 * threads - 1) / (4 * threads);
  unary_map<<<blocks, threads, 0, stream>>>(x, y, n, GeluErfOp());
}
