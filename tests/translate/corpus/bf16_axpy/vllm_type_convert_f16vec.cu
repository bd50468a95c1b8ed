// vLLM's layernorm_kernels helpers for 16-bit types: _typeConvert<T> with static overloaded convert()
// for the scalar, the packed pair, float and float2 (__bfloat162float, __bfloat1622float2,
// __float2bfloat16_rn, __float22bfloat162_rn), an alignas(16) _f16Vec<scalar_t, width> holding T1
// data[width] and rebuilding pairs as T2{data[i], data[i + 1]}, the row read as _f16Vec through
// reinterpret_cast of the __restrict__ pointers; the scalar tail through __ldg on __nv_bfloat16.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

namespace vllm {

template <typename torch_type>
struct _typeConvert {
  static constexpr bool exists = false;
};

template <>
struct _typeConvert<__nv_bfloat16> {
  static constexpr bool exists = true;
  using hip_type = __nv_bfloat16;
  using packed_hip_type = __nv_bfloat162;

  __device__ static inline float convert(hip_type x) { return __bfloat162float(x); }
  __device__ static inline float2 convert(packed_hip_type x) { return __bfloat1622float2(x); }
  __device__ static inline hip_type convert(float x) { return __float2bfloat16_rn(x); }
  __device__ static inline packed_hip_type convert(float2 x) { return __float22bfloat162_rn(x); }
};

template <typename scalar_t, int width>
struct alignas(16) _f16Vec {
  static_assert(width > 0 && (width & (width - 1)) == 0, "Width is not a positive power of 2!");
  using Converter = _typeConvert<scalar_t>;
  using T1 = typename Converter::hip_type;
  using T2 = typename Converter::packed_hip_type;
  T1 data[width];

  // this = a * this + other, each pair through float2
  __device__ void axpy_inplace(const float a, const _f16Vec<scalar_t, width>& other) {
#pragma unroll
    for (int i = 0; i < width; i += 2) {
      const float2 xf = Converter::convert(T2{data[i], data[i + 1]});
      const float2 wf = Converter::convert(T2{other.data[i], other.data[i + 1]});
      const T2 r = Converter::convert(make_float2(a * xf.x + wf.x, a * xf.y + wf.y));
      data[i] = r.x;
      data[i + 1] = r.y;
    }
  }
};

template <typename scalar_t, int width>
__global__ void axpy_vec_kernel(scalar_t* __restrict__ out, const scalar_t* __restrict__ input,
                                const scalar_t* __restrict__ residual, const float alpha, const int64_t n) {
  using Converter = _typeConvert<scalar_t>;
  static_assert(Converter::exists, "no converter");
  const int64_t vec_n = n / width;
  auto* __restrict__ input_v = reinterpret_cast<const _f16Vec<scalar_t, width>*>(input);
  auto* __restrict__ residual_v = reinterpret_cast<const _f16Vec<scalar_t, width>*>(residual);
  auto* __restrict__ out_v = reinterpret_cast<_f16Vec<scalar_t, width>*>(out);
  const int64_t idx = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (idx < vec_n) {
    _f16Vec<scalar_t, width> temp = input_v[idx];
    temp.axpy_inplace(alpha, residual_v[idx]);
    out_v[idx] = temp;
  }
  // the tail: the last n % width elements, one thread each
  const int64_t tail = vec_n * width + idx;
  if (idx < width && tail < n) {
    const float xf = Converter::convert(__ldg(input + tail));
    const float wf = Converter::convert(__ldg(residual + tail));
    out[tail] = Converter::convert(alpha * xf + wf);
  }
}

}  // namespace vllm

extern "C" void bf16_axpy(const __nv_bfloat16* x, const __nv_bfloat16* w, __nv_bfloat16* y, int64_t n, float alpha,
                          cudaStream_t stream) {
  constexpr int width = 8;
  const int64_t vec_n = n / width;
  const int threads = 128;
  const int64_t work = vec_n > width ? vec_n : width;
  const dim3 grid((unsigned)((work + threads - 1) / threads));
  vllm::axpy_vec_kernel<__nv_bfloat16, width><<<grid, threads, 0, stream>>>(y, x, w, alpha, n);
}
