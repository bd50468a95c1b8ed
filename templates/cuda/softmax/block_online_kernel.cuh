#pragma once
// softmax_rows: one block per row, two passes (also the long-row path of block_registers).
#include "online_softmax.cuh"

// One block per row: online (max, sum) over float4 loads, then a second pass (mostly from L2) that writes.
__global__ void __launch_bounds__(THREADS) softmax_rows(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  const float* row = x + blockIdx.x * cols;
  float* out = y + blockIdx.x * cols;
  float m = -INFINITY, s = 0;
  const bool vec = cols % 4 == 0;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    for (int64_t i = threadIdx.x; i < cols / 4; i += THREADS) {
      const float4 v = __ldg(r4 + i);
      add(m, s, v.x); add(m, s, v.y); add(m, s, v.z); add(m, s, v.w);
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) add(m, s, __ldg(row + i));
  }
  block_merge(m, s);
  const float inv = 1.0f / s;
  if (vec) {
    const float4* r4 = reinterpret_cast<const float4*>(row);
    float4* o4 = reinterpret_cast<float4*>(out);
    for (int64_t i = threadIdx.x; i < cols / 4; i += THREADS) {
      const float4 v = __ldg(r4 + i);
      __stcs(o4 + i, make_float4(__expf(v.x - m) * inv, __expf(v.y - m) * inv, __expf(v.z - m) * inv, __expf(v.w - m) * inv));
    }
  } else {
    for (int64_t i = threadIdx.x; i < cols; i += THREADS) out[i] = __expf(__ldg(row + i) - m) * inv;
  }
}

