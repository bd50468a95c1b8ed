// Online softmax statistics shared by the metal softmax families: a running (max, sum of exp(x - max))
// per thread, merged across a SIMD group and, through threadgroup memory, across a threadgroup.
#pragma once
#include "../common/address_spaces.h"

// Adds one element to a running (m, s): one exp per element, rescaling the sum when the max grows.
inline void online_add(thread float& m, thread float& s, float v) {
  if (v > m) {
    s = s * metal::exp(m - v) + 1.0f;
    m = v;
  } else {
    s += metal::exp(v - m);
  }
}

inline void online_add4(thread float& m, thread float& s, float4 v) {
  online_add(m, s, v.x);
  online_add(m, s, v.y);
  online_add(m, s, v.z);
  online_add(m, s, v.w);
}

// The running (m, s) of the row elements first, first + step, ... (in float4s when `vectors`: the row
// is 16-byte aligned and cols % 4 == 0). The row is `device` or, under 8 elements, `constant` (XRow).
template <typename XRow>
inline void row_statistics(XRow xr, int cols, uint first, uint step, bool vectors, thread float& m, thread float& s) {
  if (vectors) {
    const auto x4 = ks_ro_cast<float4>(xr);
    for (int c = first; c < cols / 4; c += step) online_add4(m, s, x4[c]);
  } else {
    for (int c = first; c < cols; c += step) online_add(m, s, xr[c]);
  }
}

// y = exp(x - m) * inv over the same elements.
template <typename XRow>
inline void write_normalized(XRow xr, device float* yr, int cols, uint first, uint step, bool vectors, float m,
                             float inv) {
  if (vectors) {
    const auto x4 = ks_ro_cast<float4>(xr);
    device float4* y4 = reinterpret_cast<device float4*>(yr);
    for (int c = first; c < cols / 4; c += step) y4[c] = metal::exp(x4[c] - m) * inv;
  } else {
    for (int c = first; c < cols; c += step) yr[c] = metal::exp(xr[c] - m) * inv;
  }
}

// Every lane's (m, s) merged into the SIMD group's; lanes that saw no element hold (-inf, 0).
inline void simd_merge(thread float& m, thread float& s) {
  const float group_max = simd_max(m);
  s = simd_sum(m == -INFINITY ? 0.0f : s * metal::exp(m - group_max));
  m = group_max;
}

// The threadgroup's (m, s) in every thread: each SIMD group's merged pair goes to threadgroup memory
// (`partial_m`, `partial_s`: one slot per SIMD group, NSG of them), and after one barrier every SIMD
// group merges all of them. Every thread of the threadgroup must call it (it contains a barrier).
template <int NSG>
inline void threadgroup_merge(thread float& m, thread float& s, threadgroup float* partial_m,
                              threadgroup float* partial_s, uint simdgroup, uint lane) {
  simd_merge(m, s);
  if (lane == 0) {
    partial_m[simdgroup] = m;
    partial_s[simdgroup] = s;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  m = lane < NSG ? partial_m[lane] : -INFINITY;
  s = lane < NSG ? partial_s[lane] : 0.0f;
  simd_merge(m, s);
}
