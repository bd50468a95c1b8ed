#pragma once
// Vectorizable softplus and silu and the per-chunk dt and y passes shared by the selective_scan families.
// Uses EXP_DEGREE and v_exp2_product from the vector layer.
#include <cstdint>

#include "../common/vector.h"

// softplus(x) = max(x, 0) + log1p(exp(-|x|)); log1p on (0, 1] via log(f) = 2 atanh((f-1)/(f+1)).
inline vf v_softplus(vf x) {
  const vf zero = v_set1(0.0f);
  const vf w = v_exp2_product<EXP_DEGREE>(v_max(x, v_sub(zero, x)), v_set1(-kLog2e));
  const vf s = v_div(w, v_add(v_set1(2.0f), w)), s2 = v_mul(s, s);
  vf p = v_set1(1.0f / 9);
  p = v_fma(p, s2, v_set1(1.0f / 7));
  p = v_fma(p, s2, v_set1(1.0f / 5));
  p = v_fma(p, s2, v_set1(1.0f / 3));
  p = v_fma(p, s2, v_set1(1.0f));
  return v_fma(v_add(s, s), p, v_max(x, zero));
}
// exp(-z) from z >= -88 (exp2 of at most 127): below, z / (1 + exp(88)) is as good as 0.
inline vf v_silu(vf z) {
  const vf e = v_exp2_product<EXP_DEGREE>(v_max(z, v_set1(-88.0f)), v_set1(-kLog2e));
  return v_div(z, v_add(v_set1(1.0f), e));
}

// Applies body(t, lanes) to a time chunk of tl steps a vector at a time; the last partial vector goes
// through buffers padded with zeros: body reads its inputs through in(k, t) and writes out(k, t, v).
template <int Inputs, int Outputs, typename Body>
inline void over_time(int64_t tl, const float* const (&in)[Inputs], float* const (&out)[Outputs], Body body) {
  int64_t t = 0;
  for (; t + VW <= tl; t += VW) {
    vf x[Inputs], y[Outputs];
    for (int k = 0; k < Inputs; ++k) x[k] = v_load(in[k] + t);
    body(x, y);
    for (int k = 0; k < Outputs; ++k) v_store(out[k] + t, y[k]);
  }
  if (t == tl) return;
  float pad[Inputs > Outputs ? Inputs : Outputs][VW] = {};
  vf x[Inputs], y[Outputs];
  for (int k = 0; k < Inputs; ++k) {
    for (int64_t j = t; j < tl; ++j) pad[k][j - t] = in[k][j];
    x[k] = v_load(pad[k]);
  }
  body(x, y);
  for (int k = 0; k < Outputs; ++k) {
    v_store(pad[k], y[k]);
    for (int64_t j = t; j < tl; ++j) out[k][j] = pad[k][j - t];
  }
}

// dt and dt*u for one channel's time chunk, vectorized over time.
inline void prepare_dt(const float* __restrict dl, const float* __restrict ul, float bias, bool use_softplus, int64_t tl,
                       float* __restrict dtb, float* __restrict dub) {
  const vf bv = v_set1(bias);
  over_time<2, 2>(tl, {dl, ul}, {dtb, dub}, [&](const vf* x, vf* y) {
    const vf v = use_softplus ? v_softplus(v_add(x[0], bv)) : v_add(x[0], bv);
    y[0] = v;
    y[1] = v_mul(v, x[1]);
  });
}

// y = (C.h + D*u) * silu(z) for one channel's time chunk.
inline void finish_y(const float* __restrict yb, const float* __restrict ul, const float* __restrict zl, float dskip,
                     int64_t tl, float* __restrict yl) {
  const vf dv = v_set1(dskip);
  if (zl)
    over_time<3, 1>(tl, {yb, ul, zl}, {yl}, [&](const vf* x, vf* y) { y[0] = v_mul(v_fma(dv, x[1], x[0]), v_silu(x[2])); });
  else
    over_time<2, 1>(tl, {yb, ul}, {yl}, [&](const vf* x, vf* y) { y[0] = v_fma(dv, x[1], x[0]); });
}
