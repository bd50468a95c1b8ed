// softmax, built-in cpu template family exp_cached: Max pass, exp pass storing into y, in-cache scale pass, SIMD intrinsics.
// Knobs: ksearch replaces each #define below with the value it tries (exp_cached.toml lists them).
#define VECTOR_BITS 512
#define UNROLL 4
#define THREADS 1
#define EXP_DEGREE 5
#define ROWS_PER_CHUNK 0

#include <cstdint>

#include "../common/vector.h"

// Three passes over a row that stays in L1/L2 after the first: max, exp stored into y with the sum,
// scale. One exp per element (the online form needs about two).
inline void softmax_row(const float* __restrict xr, float* __restrict yr, int64_t cols) {
  vf ms[UNROLL];
  for (int u = 0; u < UNROLL; ++u) ms[u] = v_set1(-3.0e38f);
  int64_t c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) ms[u] = v_max(ms[u], v_load(xr + c + u * VW));
  for (; c + VW <= cols; c += VW) ms[0] = v_max(ms[0], v_load(xr + c));
  for (int u = 1; u < UNROLL; ++u) ms[0] = v_max(ms[0], ms[u]);
  float mx = v_hmax(ms[0]);
  for (; c < cols; ++c) mx = xr[c] > mx ? xr[c] : mx;

  const vf mv = v_set1(mx);
  vf ss[UNROLL];
  for (int u = 0; u < UNROLL; ++u) ss[u] = v_set1(0.0f);
  c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) {
      const vf e = v_exp<EXP_DEGREE>(v_sub(v_load(xr + c + u * VW), mv));
      v_store(yr + c + u * VW, e);
      ss[u] = v_add(ss[u], e);
    }
  for (; c + VW <= cols; c += VW) {
    const vf e = v_exp<EXP_DEGREE>(v_sub(v_load(xr + c), mv));
    v_store(yr + c, e);
    ss[0] = v_add(ss[0], e);
  }
  for (int u = 1; u < UNROLL; ++u) ss[0] = v_add(ss[0], ss[u]);
  float sum = v_hsum(ss[0]);
  for (; c < cols; ++c) {
    yr[c] = s_exp<EXP_DEGREE>(xr[c] - mx);
    sum += yr[c];
  }

  const float inv = 1.0f / sum;
  const vf iv = v_set1(inv);
  c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) v_store(yr + c + u * VW, v_mul(v_load(yr + c + u * VW), iv));
  for (; c + VW <= cols; c += VW) v_store(yr + c, v_mul(v_load(yr + c), iv));
  for (; c < cols; ++c) yr[c] *= inv;
}

#include "row_loop.h"
