// half_axpy: ggml-style storage as uint16_t bits: the kernel takes the halves as const uint16_t* and writes
// uint16_t, converting through __ushort_as_half/__half2float and __float2half_rn/__half_as_ushort; the entry
// reinterpret_casts its __half pointers.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

typedef uint16_t fp16_bits_t;

static __device__ __forceinline__ float bits_to_float(fp16_bits_t b) { return __half2float(__ushort_as_half(b)); }
static __device__ __forceinline__ fp16_bits_t float_to_bits(float f) { return __half_as_ushort(__float2half_rn(f)); }

__global__ void axpy_f16_bits(const fp16_bits_t* __restrict__ x, const fp16_bits_t* __restrict__ w,
                              fp16_bits_t* __restrict__ y, const int n, const float alpha) {
  const int i = blockDim.x * blockIdx.x + threadIdx.x;
  if (i >= n) return;
  y[i] = float_to_bits(alpha * bits_to_float(x[i]) + bits_to_float(w[i]));
}

extern "C" void half_axpy(const __half* x, const __half* w, __half* y, int64_t n, float alpha, cudaStream_t stream) {
  const int block = 256;
  const int grid = (int)((n + block - 1) / block);
  axpy_f16_bits<<<grid, block, 0, stream>>>(reinterpret_cast<const fp16_bits_t*>(x),
                                             reinterpret_cast<const fp16_bits_t*>(w),
                                             reinterpret_cast<fp16_bits_t*>(y), (int)n, alpha);
}
