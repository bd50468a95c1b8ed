// task: rmsnorm
// A block per row: float4 __ldg loads of x and weight where the row is aligned, a warp-shuffle reduction of the
// sum of squares, the block size chosen from a __constant__ table by the row length.
#include <cuda_runtime.h>
#include <cstdint>

__constant__ int kBlockForLog2Cols[16] = {32, 32, 32, 32, 32, 64, 64, 128, 128, 256, 256, 512, 512, 1024, 1024, 1024};
constexpr int kHostBlockForLog2Cols[16] = {32, 32, 32, 32, 32, 64, 64, 128, 128, 256, 256, 512, 512, 1024, 1024, 1024};

__device__ __forceinline__ float warp_reduce_sum(float v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffff, v, mask);
  return v;
}

__global__ void rmsnorm_kernel(const float* __restrict__ x, const float* __restrict__ w, float* __restrict__ y, int64_t cols,
                               float eps, int log2_cols, bool vec) {
  __shared__ float warp_sums[32];
  __shared__ float inv_rms;
  // Every thread reads the launch's block size from the table the host used.
  const int block = kBlockForLog2Cols[log2_cols];
  const float* row = x + int64_t(blockIdx.x) * cols;
  float* out = y + int64_t(blockIdx.x) * cols;
  float ss = 0.f;
  if (vec) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    for (int64_t i = threadIdx.x; i < cols / 4; i += block) {
      const float4 v = __ldg(row4 + i);
      ss += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += block) {
      const float v = __ldg(row + i);
      ss += v * v;
    }
  }
  ss = warp_reduce_sum(ss);
  if (threadIdx.x % 32 == 0) warp_sums[threadIdx.x / 32] = ss;
  __syncthreads();
  if (threadIdx.x < 32) {
    float v = threadIdx.x < block / 32 ? warp_sums[threadIdx.x] : 0.f;
    v = warp_reduce_sum(v);
    if (threadIdx.x == 0) inv_rms = rsqrtf(v / float(cols) + eps);
  }
  __syncthreads();
  const float r = inv_rms;
  if (vec) {
    const float4* row4 = reinterpret_cast<const float4*>(row);
    const float4* w4 = reinterpret_cast<const float4*>(w);
    float4* out4 = reinterpret_cast<float4*>(out);
    for (int64_t i = threadIdx.x; i < cols / 4; i += block) {
      const float4 v = __ldg(row4 + i), g = __ldg(w4 + i);
      out4[i] = make_float4(v.x * r * g.x, v.y * r * g.y, v.z * r * g.z, v.w * r * g.w);
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += block) out[i] = __ldg(row + i) * r * __ldg(w + i);
  }
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps, cudaStream_t stream) {
  if (rows <= 0 || cols <= 0) return;
  int log2_cols = 0;
  while (log2_cols < 15 && (int64_t(1) << (log2_cols + 1)) <= cols) ++log2_cols;
  const bool vec = cols % 4 == 0 && reinterpret_cast<uintptr_t>(x) % 16 == 0 && reinterpret_cast<uintptr_t>(weight) % 16 == 0 &&
                   reinterpret_cast<uintptr_t>(y) % 16 == 0;
  rmsnorm_kernel<<<unsigned(rows), kHostBlockForLog2Cols[log2_cols], 0, stream>>>(x, weight, y, cols, eps, log2_cols, vec);
}
