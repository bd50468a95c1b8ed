// task: rmsnorm
// A block per row staged in dynamic shared memory declared as `extern __shared__ float4 staged[]` (the row read
// once from global memory as float4, more than 48 KiB opted in with cudaFuncSetAttribute), the sum of squares
// through CUB's BlockReduce with the warp-reductions algorithm; rows too long to stage, or not a whole number of
// aligned float4s, take an unstaged kernel (if constexpr on the template flag).
#include <cub/block/block_reduce.cuh>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kThreads = 256;
constexpr size_t kMaxStagedBytes = 160 * 1024;
static_assert(kThreads % 32 == 0, "whole warps");

template <bool kStaged>
__global__ void __launch_bounds__(kThreads)
rmsnorm_rows(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int64_t cols, float eps) {
  using BlockReduce = cub::BlockReduce<float, kThreads, cub::BLOCK_REDUCE_WARP_REDUCTIONS>;
  __shared__ typename BlockReduce::TempStorage reduce_storage;
  __shared__ float inv_rms;
  extern __shared__ float4 staged[];
  const float* row = x + int64_t(blockIdx.x) * cols;
  float* out = y + int64_t(blockIdx.x) * cols;
  float ss = 0.f;
  if constexpr (kStaged) {
    const int64_t vectors = cols / 4;
    const float4* row4 = reinterpret_cast<const float4*>(row);
    for (int64_t i = threadIdx.x; i < vectors; i += kThreads) {
      const float4 a = row4[i];
      staged[i] = a;
      ss += a.x * a.x + a.y * a.y + a.z * a.z + a.w * a.w;
    }
  } else {
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) ss += row[c] * row[c];
  }
  const float total = BlockReduce(reduce_storage).Sum(ss);
  if (threadIdx.x == 0) inv_rms = rsqrtf(total / float(cols) + eps);
  __syncthreads();
  const float scale = inv_rms;
  if constexpr (kStaged) {
    const float4* w4 = reinterpret_cast<const float4*>(w);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (int64_t i = threadIdx.x; i < cols / 4; i += kThreads) {
      const float4 a = staged[i], g = __ldg(w4 + i);
      out4[i] = make_float4(a.x * scale * g.x, a.y * scale * g.y, a.z * scale * g.z, a.w * scale * g.w);
    }
  } else {
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) out[c] = row[c] * scale * w[c];
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  const size_t staged_bytes = size_t(cols) * sizeof(float);
  const bool aligned = reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(weight) % 16 == 0 &&
                       reinterpret_cast<uintptr_t>(y) % 16 == 0;
  if (cols % 4 == 0 && aligned && staged_bytes <= kMaxStagedBytes) {
    cudaFuncSetAttribute(rmsnorm_rows<true>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(staged_bytes));
    rmsnorm_rows<true><<<unsigned(rows), kThreads, staged_bytes, stream>>>(x, weight, y, cols, eps);
  } else {
    rmsnorm_rows<false><<<unsigned(rows), kThreads, 0, stream>>>(x, weight, y, cols, eps);
  }
}
