// Warp-per-row softmax whose load type is chosen by std::conditional_t<(kVec == 4), float4, float>,
// `if constexpr` over kVec, a constexpr helper computing the vector width from the row alignment,
// the host choosing kVec by cols % 4.
#include <cuda_runtime.h>
#include <stdint.h>
#include <type_traits>

template <typename V> __device__ __forceinline__ float vmax(V v, float m) { return m; }
template <> __device__ __forceinline__ float vmax<float>(float v, float m) { return fmaxf(m, v); }
template <> __device__ __forceinline__ float vmax<float4>(float4 v, float m) {
  return fmaxf(fmaxf(fmaxf(m, v.x), fmaxf(v.y, v.z)), v.w);
}

template <int kVec>
__global__ void softmax_warp_vec(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  using vec_t = std::conditional_t<(kVec == 4), float4, float>;
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  const vec_t* xv = reinterpret_cast<const vec_t*>(xr);
  const int nv = cols / kVec;
  float m = -INFINITY;
  for (int i = lane; i < nv; i += 32) m = vmax<vec_t>(xv[i], m);
  for (int o = 16; o > 0; o >>= 1) m = fmaxf(m, __shfl_xor_sync(0xffffffffu, m, o));
  float s = 0.f;
  for (int i = lane; i < nv; i += 32) {
    const vec_t v = xv[i];
    if constexpr (kVec == 4) {
      s += __expf(v.x - m) + __expf(v.y - m) + __expf(v.z - m) + __expf(v.w - m);
    } else {
      s += __expf(v - m);
    }
  }
  for (int o = 16; o > 0; o >>= 1) s += __shfl_xor_sync(0xffffffffu, s, o);
  const float inv = 1.f / s;
  for (int c = lane; c < cols; c += 32) yr[c] = __expf(xr[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kWarps = 4;
  const unsigned blocks = (unsigned)((rows + kWarps - 1) / kWarps);
  if (cols % 4 == 0) softmax_warp_vec<4><<<blocks, 32 * kWarps, 0, stream>>>(x, y, (int)rows, (int)cols);
  else softmax_warp_vec<1><<<blocks, 32 * kWarps, 0, stream>>>(x, y, (int)rows, (int)cols);
}
