// FlashInfer style rotary embedding: vec_t<float, vec_size> (float4 storage, operator[] through a
// float* view, load/store/cast_load members), vec_apply_llama_rope<vec_size, bdx>() reading the
// thread's own vec and its rotation partner from the other half, the head dimension turned into a
// compile-time constant by a DISPATCH_HEAD_DIM(head_dim, HEAD_DIM, {...}) switch macro, the block as
// (bdx, bdy) with vec_size = max(16 / sizeof(DType), HEAD_DIM / 32) and bdx = HEAD_DIM / vec_size.
#include <cuda_runtime.h>
#include <stdint.h>
#include <algorithm>

#define FLASHINFER_INLINE inline __attribute__((always_inline)) __device__

template <typename float_t, size_t vec_size>
struct vec_t;

template <size_t vec_size>
struct vec_t<float, vec_size> {
  static_assert(vec_size % 4 == 0, "Invalid vector size");
  float4 data[vec_size / 4];

  FLASHINFER_INLINE float& operator[](size_t i) { return ((float*)(data))[i]; }
  FLASHINFER_INLINE const float& operator[](size_t i) const { return ((const float*)(data))[i]; }
  FLASHINFER_INLINE float* ptr() { return reinterpret_cast<float*>(&data); }
  FLASHINFER_INLINE void fill(float val) {
#pragma unroll
    for (size_t i = 0; i < vec_size / 4; ++i) data[i] = make_float4(val, val, val, val);
  }
  FLASHINFER_INLINE void load(const float* ptr) {
#pragma unroll
    for (size_t i = 0; i < vec_size / 4; ++i) data[i] = ((float4*)ptr)[i];
  }
  FLASHINFER_INLINE void store(float* ptr) const {
#pragma unroll
    for (size_t i = 0; i < vec_size / 4; ++i) ((float4*)ptr)[i] = data[i];
  }
  template <typename T>
  FLASHINFER_INLINE void cast_load(const T* ptr) {
    load(ptr);
  }
  template <typename T>
  FLASHINFER_INLINE void cast_store(T* ptr) const {
    store(ptr);
  }
};

template <uint32_t vec_size, uint32_t bdx, typename T>
FLASHINFER_INLINE vec_t<float, vec_size> vec_apply_llama_rope(const T* x, const float* cos_row, const float* sin_row,
                                                             uint32_t rotary_dim) {
  vec_t<float, vec_size> permuted_vec, vec;
  const uint32_t base = threadIdx.x * vec_size;
  const bool first_half = base < rotary_dim / 2;
  vec.cast_load(x + base);
  permuted_vec.cast_load(x + (first_half ? base + rotary_dim / 2 : base - rotary_dim / 2));
  vec_t<float, vec_size> c, s;
  c.load(cos_row + (first_half ? base : base - rotary_dim / 2));
  s.load(sin_row + (first_half ? base : base - rotary_dim / 2));
#pragma unroll
  for (uint32_t i = 0; i < vec_size; ++i) {
    vec[i] = vec[i] * c[i] + (first_half ? -permuted_vec[i] : permuted_vec[i]) * s[i];
  }
  return vec;
}

template <uint32_t HEAD_DIM, uint32_t vec_size, uint32_t bdx, typename DType>
__global__ void BatchApplyRotaryKernel(const DType* __restrict__ q, DType* __restrict__ q_rope,
                                       const float* __restrict__ cos_cache, const float* __restrict__ sin_cache,
                                       uint32_t num_qo_heads, size_t q_stride_n, size_t q_stride_h) {
  const uint32_t tx = threadIdx.x, ty = threadIdx.y;
  const uint32_t bdy = blockDim.y;
  const uint32_t idx = blockIdx.x;
  const float* cos_row = cos_cache + idx * (HEAD_DIM / 2);
  const float* sin_row = sin_cache + idx * (HEAD_DIM / 2);
  for (uint32_t qo_head_idx = ty; qo_head_idx < num_qo_heads; qo_head_idx += bdy) {
    const DType* q_ptr = q + idx * q_stride_n + qo_head_idx * q_stride_h;
    DType* q_rope_ptr = q_rope + idx * q_stride_n + qo_head_idx * q_stride_h;
    vec_t<float, vec_size> q_vec = vec_apply_llama_rope<vec_size, bdx>(q_ptr, cos_row, sin_row, HEAD_DIM);
    q_vec.cast_store(q_rope_ptr + tx * vec_size);
  }
}

#define DISPATCH_HEAD_DIM(head_dim, HEAD_DIM, ...) \
  switch (head_dim) {                              \
    case 16: {                                     \
      constexpr uint32_t HEAD_DIM = 16;            \
      __VA_ARGS__                                  \
      break;                                       \
    }                                              \
    case 64: {                                     \
      constexpr uint32_t HEAD_DIM = 64;            \
      __VA_ARGS__                                  \
      break;                                       \
    }                                              \
    case 128: {                                    \
      constexpr uint32_t HEAD_DIM = 128;           \
      __VA_ARGS__                                  \
      break;                                       \
    }                                              \
    default:                                       \
      break;                                       \
  }

extern "C" void rope(const float* x, const float* cos, const float* sin, float* y, int64_t t, int64_t h,
                     int64_t rot, cudaStream_t stream) {
  const uint32_t head_dim = (uint32_t)(2 * rot);
  const uint32_t num_qo_heads = (uint32_t)h;
  DISPATCH_HEAD_DIM(head_dim, HEAD_DIM, {
    constexpr uint32_t vec_size = std::max<uint32_t>(16U / sizeof(float), HEAD_DIM / 32U);
    constexpr uint32_t bdx = HEAD_DIM / vec_size;
    uint32_t num_threads = std::max(128U, bdx);
    uint32_t bdy = num_threads / bdx;
    dim3 nblks(t);
    dim3 nthrs(bdx, bdy);
    BatchApplyRotaryKernel<HEAD_DIM, vec_size, bdx, float><<<nblks, nthrs, 0, stream>>>(
        x, y, cos, sin, num_qo_heads, (size_t)h * HEAD_DIM, (size_t)HEAD_DIM);
  });
}
