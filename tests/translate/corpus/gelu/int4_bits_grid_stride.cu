// gelu: the input read as int4 words through reinterpret_cast (four floats per load, bits by __int_as_float),
// stored back through __float_as_int into an int4 view of the output, a scalar tail, size_t grid-stride,
// constexpr constants in a namespace, a static inline __device__ helper.
#include <cuda_runtime.h>
#include <stdint.h>

namespace gelu_detail {
constexpr float kInvSqrt2 = 0.70710678118654752440f;

static inline __device__ float gelu_erf(float v) { return 0.5f * v * (1.0f + erff(v * kInvSqrt2)); }

static inline __device__ int gelu_bits(int bits) { return __float_as_int(gelu_erf(__int_as_float(bits))); }
}  // namespace gelu_detail

__global__ void gelu_int4(const float* __restrict__ x, float* __restrict__ y, size_t n) {
  using namespace gelu_detail;
  const size_t stride = (size_t)gridDim.x * blockDim.x;
  const size_t tid = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
  const size_t n4 = n / 4;
  const int4* __restrict__ in4 = reinterpret_cast<const int4*>(x);
  int4* __restrict__ out4 = reinterpret_cast<int4*>(y);
  for (size_t i = tid; i < n4; i += stride) {
    const int4 w = in4[i];
    out4[i] = make_int4(gelu_bits(w.x), gelu_bits(w.y), gelu_bits(w.z), gelu_bits(w.w));
  }
  for (size_t i = n4 * 4 + tid; i < n; i += stride) y[i] = gelu_erf(x[i]);
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const int threads = 128;
  const size_t vec = ((size_t)n + 3) / 4;
  const int blocks = (int)((vec + threads - 1) / threads);
  gelu_int4<<<blocks > 0 ? blocks : 1, threads, 0, stream>>>(x, y, (size_t)n);
}
