// Warp-per-row softmax written with pointer typedefs (`typedef float* fptr;`, `using cptr = const float*;`,
// a typedef'd float4 pointer in a reinterpret_cast), templated shuffle helpers.
#include <cuda_runtime.h>
#include <stdint.h>

typedef float* fptr;
using cptr = const float*;
typedef const float4* cf4ptr;

template <typename T>
__device__ __forceinline__ T warp_max(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  return v;
}

template <typename T>
__device__ __forceinline__ T warp_sum(T v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

__global__ void softmax_rows(cptr __restrict__ x, fptr __restrict__ y, int rows, int cols) {
  const int warps = blockDim.x / 32;
  const int row = blockIdx.x * warps + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  cptr xr = x + (size_t)row * cols;
  fptr yr = y + (size_t)row * cols;
  float m = -INFINITY;
  const bool vec = (cols % 4) == 0;
  if (vec) {
    cf4ptr x4 = reinterpret_cast<cf4ptr>(xr);
    for (int c = lane; c < cols / 4; c += 32) {
      float4 v = __ldg(x4 + c);
      m = fmaxf(m, fmaxf(fmaxf(v.x, v.y), fmaxf(v.z, v.w)));
    }
  } else {
    for (int c = lane; c < cols; c += 32) m = fmaxf(m, xr[c]);
  }
  m = warp_max(m);
  float s = 0.f;
  for (int c = lane; c < cols; c += 32) s += expf(xr[c] - m);
  s = warp_sum(s);
  const float inv = 1.f / s;
  for (int c = lane; c < cols; c += 32) yr[c] = expf(xr[c] - m) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kThreads = 128;
  const int rows_per_block = kThreads / 32;
  softmax_rows<<<(rows + rows_per_block - 1) / rows_per_block, kThreads, 0, stream>>>(x, y, rows, cols);
}
