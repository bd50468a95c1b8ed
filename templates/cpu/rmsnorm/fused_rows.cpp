// rmsnorm, built-in cpu template family fused_rows: RMSNorm with SIMD intrinsics, independent accumulators and optional streaming stores.
// Knobs: ksearch replaces each #define below with the value it tries (fused_rows.toml lists them).
#define VECTOR_BITS 512
#define UNROLL 4
#define THREADS 1
#define STREAM_STORES 1
#define ROWS_PER_CHUNK 0

#include <cmath>
#include <cstdint>

#include "../common/vector.h"

// Sum of squares with UNROLL independent accumulators (the row then sits in L1/L2), then one scaling
// pass; weight stays cache-resident across rows.
inline void rmsnorm_row(const float* __restrict xr, const float* __restrict w, float* __restrict yr, int64_t cols,
                        float eps) {
  vf acc[UNROLL];
  for (int u = 0; u < UNROLL; ++u) acc[u] = v_set1(0.0f);
  int64_t c = 0;
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) {
      const vf xv = v_load(xr + c + u * VW);
      acc[u] = v_fma(xv, xv, acc[u]);
    }
  for (; c + VW <= cols; c += VW) {
    const vf xv = v_load(xr + c);
    acc[0] = v_fma(xv, xv, acc[0]);
  }
  for (int w2 = UNROLL / 2; w2 > 0; w2 /= 2)
    for (int u = 0; u < w2; ++u) acc[u] = v_add(acc[u], acc[u + w2]);
  float sum_sq = v_hsum(acc[0]);
  for (; c < cols; ++c) sum_sq += xr[c] * xr[c];
  const float inv = 1.0f / std::sqrt(sum_sq / float(cols) + eps);
  const vf iv = v_set1(inv);

  c = 0;
  if constexpr (STREAM_STORES) {
    // Non-temporal stores skip reading y into the cache first; they need aligned addresses.
    for (; c < cols && (reinterpret_cast<uintptr_t>(yr + c) % (VW * sizeof(float))) != 0; ++c)
      yr[c] = xr[c] * inv * w[c];
  }
  for (; c + UNROLL * VW <= cols; c += UNROLL * VW)
    for (int u = 0; u < UNROLL; ++u) {
      const vf e = v_mul(v_mul(v_load(xr + c + u * VW), iv), v_load(w + c + u * VW));
      if constexpr (STREAM_STORES) v_stream(yr + c + u * VW, e); else v_store(yr + c + u * VW, e);
    }
  for (; c + VW <= cols; c += VW) {
    const vf e = v_mul(v_mul(v_load(xr + c), iv), v_load(w + c));
    if constexpr (STREAM_STORES) v_stream(yr + c, e); else v_store(yr + c, e);
  }
  for (; c < cols; ++c) yr[c] = xr[c] * inv * w[c];
}

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps) {
#pragma omp parallel if (THREADS)
  {
    if constexpr (ROWS_PER_CHUNK == 0) {
#pragma omp for schedule(static)
      for (int64_t r = 0; r < rows; ++r) rmsnorm_row(x + r * cols, weight, y + r * cols, cols, eps);
    } else {
#pragma omp for schedule(dynamic, ROWS_PER_CHUNK)
      for (int64_t r = 0; r < rows; ++r) rmsnorm_row(x + r * cols, weight, y + r * cols, cols, eps);
    }
    v_sfence();
  }
}
