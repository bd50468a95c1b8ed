// llm.c's Packed128: a templated alignas(16) struct with a defaulted constructor, an explicit one from int4 and
// get_bits(), both through memcpy of the payload (device code's memcpy, in thread memory), a static constexpr size,
// loads through __ldcs of an int4 pointer; the exact GELU on whole vectors, a scalar tail.
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

template <class ElementType>
struct alignas(16) Packed128 {
  Packed128() = default;
  __device__ explicit Packed128(int4 bits) {
    static_assert(sizeof(bits) == sizeof(payload), "Size mismatch.");
    memcpy(&payload, &bits, sizeof(bits));
  }
  __device__ ElementType& operator[](int index) { return payload[index]; }
  __device__ const ElementType& operator[](int index) const { return payload[index]; }
  __device__ int4 get_bits() const {
    int4 bits;
    memcpy(&bits, &payload, sizeof(bits));
    return bits;
  }
  static constexpr const size_t size = sizeof(int4) / sizeof(ElementType);
  ElementType payload[size];
};

template <class ElementType>
__device__ Packed128<ElementType> load128cs(const ElementType* address) {
  return Packed128<ElementType>{__ldcs(reinterpret_cast<const int4*>(address))};
}
template <class ElementType>
__device__ void store128(ElementType* target, Packed128<ElementType> value) {
  *reinterpret_cast<int4*>(target) = value.get_bits();
}
typedef Packed128<float> f128;

#define GELU_SCALING_FACTOR 0.70710678118654752440f
__device__ inline float gelu_exact(float x) { return 0.5f * x * (1.0f + erff(x * GELU_SCALING_FACTOR)); }

__global__ void gelu_forward_kernel2(float* out, const float* inp, int N) {
  int i = (blockIdx.x * blockDim.x + threadIdx.x) * f128::size;
  if (i + (int)f128::size <= N) {
    f128 packed_out;
    f128 packed_inp = load128cs(inp + i);
    for (int k = 0; k < packed_inp.size; ++k) packed_out[k] = gelu_exact(packed_inp[k]);
    store128(out + i, packed_out);
  } else {
    for (; i < N; ++i) out[i] = gelu_exact(inp[i]);
  }
}

extern "C" void gelu(const float* x, float* y, int64_t n, cudaStream_t stream) {
  const int block_size = 128;
  const int grid_size = (int)((n + block_size * 4 - 1) / (block_size * 4));
  gelu_forward_kernel2<<<grid_size, block_size, 0, stream>>>(y, x, (int)n);
}
