// Row helpers shared by the metal rmsnorm families: strided sums of squares, the scaled write, and a
// threadgroup-wide sum through SIMD-group functions and threadgroup memory.
#pragma once
#include "../common/address_spaces.h"

// The sum of squares of the row elements first, first + step, ... (in float4s when `vectors`: the row
// is 16-byte aligned and cols % 4 == 0). Inputs are `device` or, under 8 elements, `constant` (XRow, WRow).
template <typename XRow>
inline float sum_squares(XRow xr, int cols, uint first, uint step, bool vectors) {
  float ss = 0.0f;
  if (vectors) {
    const auto x4 = ks_ro_cast<float4>(xr);
    for (int c = first; c < cols / 4; c += step) ss += metal::dot(x4[c], x4[c]);
  } else {
    for (int c = first; c < cols; c += step) ss += xr[c] * xr[c];
  }
  return ss;
}

// y = x * r * weight over the same elements.
template <typename XRow, typename WRow>
inline void write_scaled(XRow xr, WRow weight, device float* yr, int cols, uint first, uint step, bool vectors, float r) {
  if (vectors) {
    const auto x4 = ks_ro_cast<float4>(xr);
    const auto w4 = ks_ro_cast<float4>(weight);
    device float4* y4 = reinterpret_cast<device float4*>(yr);
    for (int c = first; c < cols / 4; c += step) y4[c] = x4[c] * r * w4[c];
  } else {
    for (int c = first; c < cols; c += step) yr[c] = xr[c] * r * weight[c];
  }
}

// The threadgroup's sum of `v` in every thread: SIMD-group sums meet in threadgroup memory (`partial`,
// one slot per SIMD group, NSG of them) and every SIMD group adds them up after one barrier. Every
// thread of the threadgroup must call it (it contains a barrier).
template <int NSG>
inline float threadgroup_sum(float v, threadgroup float* partial, uint simdgroup, uint lane) {
  v = simd_sum(v);
  if (lane == 0) partial[simdgroup] = v;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  return simd_sum(lane < NSG ? partial[lane] : 0.0f);
}
