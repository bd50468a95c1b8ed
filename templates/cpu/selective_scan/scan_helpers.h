#pragma once
// Vectorizable softplus and silu and the per-chunk dt and y passes shared by the selective_scan families.
// Uses EXP_DEGREE and s_exp from the vector layer.
#include <cstdint>

#include "../common/vector.h"

// softplus(x) = max(x, 0) + log1p(exp(-|x|)); log1p on (0, 1] via log(f) = 2 atanh((f-1)/(f+1)).
inline float softplus(float x) {
  const float ax = x < 0.0f ? -x : x;
  const float w = s_exp<EXP_DEGREE>(-ax);
  const float s = w / (2.0f + w), s2 = s * s;
  const float lg = 2.0f * s * (1.0f + s2 * (1.0f / 3 + s2 * (1.0f / 5 + s2 * (1.0f / 7 + s2 * (1.0f / 9)))));
  return (x > 0.0f ? x : 0.0f) + lg;
}
inline float silu(float z) { return z / (1.0f + s_exp<EXP_DEGREE>(-z)); }

// dt and dt*u for one channel's time chunk, vectorized over time.
inline void prepare_dt(const float* __restrict dl, const float* __restrict ul, float bias, bool use_softplus, int64_t tl,
                       float* __restrict dtb, float* __restrict dub) {
  if (use_softplus) {
#pragma omp simd
    for (int64_t t = 0; t < tl; ++t) {
      const float v = softplus(dl[t] + bias);
      dtb[t] = v;
      dub[t] = v * ul[t];
    }
  } else {
#pragma omp simd
    for (int64_t t = 0; t < tl; ++t) {
      const float v = dl[t] + bias;
      dtb[t] = v;
      dub[t] = v * ul[t];
    }
  }
}

// y = (C.h + D*u) * silu(z) for one channel's time chunk.
inline void finish_y(const float* __restrict yb, const float* __restrict ul, const float* __restrict zl, float dskip,
                     int64_t tl, float* __restrict yl) {
  if (zl) {
#pragma omp simd
    for (int64_t t = 0; t < tl; ++t) yl[t] = (yb[t] + dskip * ul[t]) * silu(zl[t]);
  } else {
#pragma omp simd
    for (int64_t t = 0; t < tl; ++t) yl[t] = yb[t] + dskip * ul[t];
  }
}
