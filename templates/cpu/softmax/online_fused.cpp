// softmax, built-in cpu template family online_fused: Single read pass with online max+sum, then a normalize pass, SIMD intrinsics.
// Knobs: ksearch replaces each #define below with the value it tries (online_fused.toml lists them).
#define VECTOR_BITS 512
#define UNROLL 4
#define THREADS 1
#define EXP_DEGREE 5
#define STREAM_STORES 1
#define ROWS_PER_CHUNK 0

#include <algorithm>
#include <cstdint>

#include "../common/vector.h"

// Pass 1 reads the row once, keeping a running max and a sum rescaled whenever the max grows (once
// per block of UNROLL vectors). Pass 2 re-reads the row (now in L1/L2) and writes the result.
inline void softmax_row(const float* __restrict xr, float* __restrict yr, int64_t cols) {
  vf m = v_set1(-3.0e38f), s = v_set1(0.0f);
  int64_t c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW) {
    vf xs[UNROLL];
    for (int u = 0; u < UNROLL; ++u) xs[u] = v_load(xr + c + u * VW);
    vf bm = xs[0];
    for (int u = 1; u < UNROLL; ++u) bm = v_max(bm, xs[u]);
    const vf mn = v_max(m, bm);
    vf parts[UNROLL];
    for (int u = 0; u < UNROLL; ++u) parts[u] = v_exp<EXP_DEGREE>(v_sub(xs[u], mn));
    for (int w = UNROLL / 2; w > 0; w /= 2)
      for (int u = 0; u < w; ++u) parts[u] = v_add(parts[u], parts[u + w]);
    s = v_fma(s, v_exp<EXP_DEGREE>(v_sub(m, mn)), parts[0]);
    m = mn;
  }
  for (; c + VW <= cols; c += VW) {
    const vf xv = v_load(xr + c);
    const vf mn = v_max(m, xv);
    s = v_fma(s, v_exp<EXP_DEGREE>(v_sub(m, mn)), v_exp<EXP_DEGREE>(v_sub(xv, mn)));
    m = mn;
  }
  float ms = -3.0e38f, ss = 0.0f;
  for (int64_t t = c; t < cols; ++t) {
    const float mn = xr[t] > ms ? xr[t] : ms;
    ss = ss * s_exp<EXP_DEGREE>(ms - mn) + s_exp<EXP_DEGREE>(xr[t] - mn);
    ms = mn;
  }
  const float mx = std::max(v_hmax(m), ms);
  const float sum = v_hsum(v_mul(s, v_exp<EXP_DEGREE>(v_sub(m, v_set1(mx))))) + ss * s_exp<EXP_DEGREE>(ms - mx);
  const float inv = 1.0f / sum;
  const vf mv = v_set1(mx), iv = v_set1(inv);

  c = 0;
  if constexpr (STREAM_STORES) {
    // Non-temporal stores skip reading y into the cache first; they need aligned addresses.
    for (; c < cols && (reinterpret_cast<uintptr_t>(yr + c) % (VW * sizeof(float))) != 0; ++c)
      yr[c] = s_exp<EXP_DEGREE>(xr[c] - mx) * inv;
  }
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) {
      const vf e = v_mul(v_exp<EXP_DEGREE>(v_sub(v_load(xr + c + u * VW), mv)), iv);
      if constexpr (STREAM_STORES) v_stream(yr + c + u * VW, e); else v_store(yr + c + u * VW, e);
    }
  for (; c + VW <= cols; c += VW) {
    const vf e = v_mul(v_exp<EXP_DEGREE>(v_sub(v_load(xr + c), mv)), iv);
    if constexpr (STREAM_STORES) v_stream(yr + c, e); else v_store(yr + c, e);
  }
  for (; c < cols; ++c) yr[c] = s_exp<EXP_DEGREE>(xr[c] - mx) * inv;
}

#include "row_loop.h"
