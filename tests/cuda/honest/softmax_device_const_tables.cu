// task: softmax
// A block per row with `__device__ const` tables instead of __constant__ ones, indexed at run time so that they
// stay in the device code's global memory: per-lane butterfly offsets in a namespace, a static table of
// reciprocal block sizes, a constexpr scale.
#include <cuda_runtime.h>
#include <cstdint>

namespace tables {
__device__ const int kButterfly[5] = {16, 8, 4, 2, 1};
__device__ constexpr float kLog2e[1] = {1.4426950408889634f};
}  // namespace tables
static __device__ const float kInvWarps[9] = {0.f, 1.f, 0.5f, 1.f / 3.f, 0.25f, 0.2f, 1.f / 6.f, 1.f / 7.f, 0.125f};

constexpr int kThreads = 256;

__device__ float warp_reduce(float v, bool is_max, int levels) {
  for (int i = 0; i < levels; ++i) {
    const float o = __shfl_xor_sync(0xffffffffu, v, tables::kButterfly[i]);
    v = is_max ? fmaxf(v, o) : v + o;
  }
  return v;
}

__device__ float block_reduce(float v, bool is_max, float* scratch, int levels) {
  v = warp_reduce(v, is_max, levels);
  if (threadIdx.x % 32 == 0) scratch[threadIdx.x / 32] = v;
  __syncthreads();
  float r = scratch[0];
  for (int w = 1; w < kThreads / 32; ++w) r = is_max ? fmaxf(r, scratch[w]) : r + scratch[w];
  __syncthreads();
  return r;
}

__global__ void softmax_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t cols, int levels, int warps) {
  __shared__ float scratch[kThreads / 32];
  const float* in = x + int64_t(blockIdx.x) * cols;
  float* out = y + int64_t(blockIdx.x) * cols;
  const float scale = tables::kLog2e[levels - 5];
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) m = fmaxf(m, in[c]);
  m = block_reduce(m, true, scratch, levels);
  float s = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) s += exp2f((in[c] - m) * scale);
  // The mean per warp times the warp count: the same sum, through the table.
  s = block_reduce(s, false, scratch, levels) * kInvWarps[warps] * float(warps);
  const float inv = 1.f / s;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) out[c] = exp2f((in[c] - m) * scale) * inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  softmax_kernel<<<unsigned(rows), kThreads, 0, stream>>>(x, y, cols, 5, kThreads / 32);
}
