// FlashInfer's vec_dtypes.cuh style: vec_t<half, 8> as a full specialization holding a uint4 (operator[]
// through reinterpret_cast<half*>(&data), load/store as one uint4), vec_t<float, 8> holding float4
// data[2], vec_cast<float, half>::cast<8> through __half22float2 on half2 pairs and back with
// __float22half2_rn, fill(); the axpy done in float on 8-element vectors, a scalar tail with __half2float.
#include <cuda_fp16.h>
#include <cuda_runtime.h>
#include <stdint.h>

#define FLASHINFER_INLINE inline __attribute__((always_inline)) __device__

template <typename float_t, size_t vec_size>
struct vec_t {};

template <>
struct vec_t<half, 8> {
  uint4 data;
  FLASHINFER_INLINE half& operator[](size_t i) { return ((half*)(&data))[i]; }
  FLASHINFER_INLINE const half& operator[](size_t i) const { return ((const half*)(&data))[i]; }
  FLASHINFER_INLINE half* ptr() { return reinterpret_cast<half*>(&data); }
  FLASHINFER_INLINE void load(const half* ptr) { data = *((uint4*)ptr); }
  FLASHINFER_INLINE void store(half* ptr) const { *((uint4*)ptr) = data; }
};

template <>
struct vec_t<float, 8> {
  float4 data[2];
  FLASHINFER_INLINE float& operator[](size_t i) { return ((float*)(data))[i]; }
  FLASHINFER_INLINE const float& operator[](size_t i) const { return ((const float*)(data))[i]; }
  FLASHINFER_INLINE float* ptr() { return reinterpret_cast<float*>(&data); }
  FLASHINFER_INLINE void fill(float val) {
    data[0] = make_float4(val, val, val, val);
    data[1] = make_float4(val, val, val, val);
  }
};

template <typename dst_t, typename src_t>
struct vec_cast {};

template <>
struct vec_cast<float, half> {
  template <size_t vec_size>
  FLASHINFER_INLINE static void cast(float* dst, const half* src) {
#pragma unroll
    for (size_t i = 0; i < vec_size / 2; ++i) {
      ((float2*)dst)[i] = __half22float2(((const half2*)src)[i]);
    }
  }
};

template <>
struct vec_cast<half, float> {
  template <size_t vec_size>
  FLASHINFER_INLINE static void cast(half* dst, const float* src) {
#pragma unroll
    for (size_t i = 0; i < vec_size / 2; ++i) {
      ((half2*)dst)[i] = __float22half2_rn(((const float2*)src)[i]);
    }
  }
};

template <size_t vec_size>
__global__ void axpy_vec_kernel(const half* __restrict__ x, const half* __restrict__ w, half* __restrict__ y,
                                const int64_t n, const float alpha) {
  const int64_t n_vec = n / vec_size;
  const int64_t i = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n_vec) {
    vec_t<half, vec_size> xh, wh, yh;
    xh.load(x + i * vec_size);
    wh.load(w + i * vec_size);
    vec_t<float, vec_size> xf, wf, yf;
    vec_cast<float, half>::cast<vec_size>(xf.ptr(), xh.ptr());
    vec_cast<float, half>::cast<vec_size>(wf.ptr(), wh.ptr());
    yf.fill(0.f);
#pragma unroll
    for (size_t j = 0; j < vec_size; ++j) yf[j] = fmaf(alpha, xf[j], wf[j]);
    vec_cast<half, float>::cast<vec_size>(yh.ptr(), yf.ptr());
    yh.store(y + i * vec_size);
  } else if (i < n_vec + (n % vec_size)) {
    const int64_t t = n_vec * vec_size + (i - n_vec);
    y[t] = __float2half(fmaf(alpha, __half2float(x[t]), __half2float(w[t])));
  }
}

extern "C" void half_axpy(const __half* x, const __half* w, __half* y, int64_t n, float alpha, cudaStream_t stream) {
  constexpr size_t vec_size = 8;
  const int64_t work = n / vec_size + n % vec_size;
  const int threads = 64;
  axpy_vec_kernel<vec_size><<<(unsigned)((work + threads - 1) / threads), threads, 0, stream>>>(x, w, y, n, alpha);
}
