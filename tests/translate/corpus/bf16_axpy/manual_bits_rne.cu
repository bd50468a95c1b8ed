// bf16_axpy: llama.cpp/vLLM-style bf16 handling by hand: the kernel takes the values as const uint16_t*, widens
// them by a shift into float bits (__uint_as_float(b << 16)) and narrows the result with round-to-nearest-even
// on the bits (NaN kept quiet); __ldg of the 16-bit words.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

static __device__ __forceinline__ float bf16_bits_to_float(uint16_t b) { return __uint_as_float((uint32_t)b << 16); }

static __device__ __forceinline__ uint16_t float_to_bf16_bits(float f) {
  uint32_t u = __float_as_uint(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((u >> 16) | 0x40u);  // NaN: keep it quiet
  u += 0x7fffu + ((u >> 16) & 1u);
  return (uint16_t)(u >> 16);
}

__global__ void bf16_axpy_bits(const uint16_t* __restrict__ x, const uint16_t* __restrict__ w, uint16_t* __restrict__ y,
                               int64_t n, float alpha) {
  for (int64_t i = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; i < n; i += (int64_t)gridDim.x * blockDim.x) {
    const float a = bf16_bits_to_float(__ldg(x + i));
    const float b = bf16_bits_to_float(__ldg(w + i));
    y[i] = float_to_bf16_bits(fmaf(alpha, a, b));
  }
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  bf16_axpy_bits<<<8, 256, 0, stream>>>(reinterpret_cast<const uint16_t*>(x), reinterpret_cast<const uint16_t*>(w),
                                        reinterpret_cast<uint16_t*>(y), n, alpha);
}
