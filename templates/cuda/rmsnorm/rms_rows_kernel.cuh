#pragma once
// rms_rows: one block per row, two passes (also the long-row path of block_registers).
#include "rms_common.cuh"

// One block per row: sum of squares with float4 loads, then a write pass that re-reads the row (from L2).
__global__ void __launch_bounds__(THREADS) rms_rows(const float* __restrict__ x, const float* __restrict__ w,
                                                    float* __restrict__ y, int64_t cols, float eps) {
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float s = 0;
  const bool vec = cols % 4 == 0;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    for (int64_t i = threadIdx.x; i < cols / 4; i += THREADS) {
      const float4 v = __ldg(r4 + i);
      s += v.x * v.x + v.y * v.y + v.z * v.z + v.w * v.w;
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) s += row[i] * row[i];
  }
  const float inv = rsqrtf(block_sum(s) / float(cols) + eps);
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    const float4* w4 = reinterpret_cast<const float4*>(w);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (int64_t i = threadIdx.x; i < cols / 4; i += THREADS) __stcs(o4 + i, scale4(__ldg(r4 + i), __ldg(w4 + i), inv));
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) out[i] = row[i] * inv * w[i];
  }
}

