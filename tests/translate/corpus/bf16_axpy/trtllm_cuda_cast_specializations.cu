// FasterTransformer/TensorRT-LLM style: a cuda_cast<T_OUT, T_IN> function template with explicit full
// specializations, a packed-type trait (TypeConverter), __nv_bfloat162 math through float2, a Packed
// struct of 4 bf16 loaded as one 64-bit word (uint2).
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

namespace tensorrt_llm::common {

template <typename T> struct TypeConverter { using Type = __nv_bfloat162; };
template <> struct TypeConverter<__nv_bfloat162> { using Type = __nv_bfloat16; };

template <typename T_OUT, typename T_IN>
__device__ inline T_OUT cuda_cast(T_IN val) {
  return val;
}
template <>
__device__ inline float2 cuda_cast<float2, __nv_bfloat162>(__nv_bfloat162 val) {
  return __bfloat1622float2(val);
}
template <>
__device__ inline __nv_bfloat162 cuda_cast<__nv_bfloat162, float2>(float2 val) {
  return __float22bfloat162_rn(val);
}
template <>
__device__ inline float cuda_cast<float, __nv_bfloat16>(__nv_bfloat16 val) {
  return __bfloat162float(val);
}
template <>
__device__ inline __nv_bfloat16 cuda_cast<__nv_bfloat16, float>(float val) {
  return __float2bfloat16(val);
}

struct __align__(8) Packed4 {
  __nv_bfloat162 lo, hi;
};

}  // namespace tensorrt_llm::common

using namespace tensorrt_llm::common;

__global__ void bf16_axpy_packed(const Packed4* __restrict__ x4, const Packed4* __restrict__ w4, Packed4* __restrict__ y4,
                                 const __nv_bfloat16* __restrict__ x, const __nv_bfloat16* __restrict__ w,
                                 __nv_bfloat16* __restrict__ y, int n, float alpha) {
  using T2 = typename TypeConverter<__nv_bfloat16>::Type;
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  const int quads = n / 4;
  if (i < quads) {
    const Packed4 a = x4[i], b = w4[i];
    Packed4 r;
    const T2* ap = &a.lo;
    const T2* bp = &b.lo;
    T2* rp = &r.lo;
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      const float2 fa = cuda_cast<float2>(ap[h]);
      const float2 fb = cuda_cast<float2>(bp[h]);
      rp[h] = cuda_cast<T2>(make_float2(alpha * fa.x + fb.x, alpha * fa.y + fb.y));
    }
    y4[i] = r;
  }
  const int tail = quads * 4 + i;
  if (tail < n && i < 4) y[tail] = cuda_cast<__nv_bfloat16>(alpha * cuda_cast<float>(x[tail]) + cuda_cast<float>(w[tail]));
}

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  const int quads = (int)(n / 4);
  const int threads = 128;
  const int blocks = quads > 0 ? (quads + threads - 1) / threads : 1;
  bf16_axpy_packed<<<blocks, threads, 0, stream>>>(reinterpret_cast<const Packed4*>(x), reinterpret_cast<const Packed4*>(w),
                                                   reinterpret_cast<Packed4*>(y), x, w, y, (int)n, alpha);
}
