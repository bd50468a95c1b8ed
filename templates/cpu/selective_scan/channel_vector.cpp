// selective_scan, built-in cpu template family channel_vector: Fused scan vectorized across channels, B/C broadcast per step, OpenMP over (batch, group, block).
// Knobs: ksearch replaces each #define below with the value it tries (channel_vector.toml lists them).
#define CHANNEL_BLOCK 16
#define CHUNK 64
#define EXP_DEGREE 6
#define THREADS 1

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../common/vector.h"
#include "scan_helpers.h"

// SIMD lanes over CHANNEL_BLOCK channels of one group: B[k, t] and C[k, t] are then scalars shared by all
// lanes (no transposes of B/C, no horizontal sums); u, dt and y are transposed per time chunk to
// [time][channel] so the recurrence loop is unit-stride over channels.
extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C,
                               const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                               int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int32_t bc_layout,
                               int32_t delta_softplus) {
  constexpr int64_t CB = CHANNEL_BLOCK;
  const bool fixed = bc_layout == 0;
  const int64_t dg = d / g;
  const int64_t blocks_per_group = (dg + CB - 1) / CB;
#pragma omp parallel if (THREADS)
  {
    // Lanes past the block's channels run on zeros (finite) and are never written back.
    std::vector<float> h(size_t(n * CB)), at(size_t(n * CB)), bc(size_t(n * CB)), cc(size_t(n * CB));
    std::vector<float> dtt(size_t(CHUNK * CB)), dut(size_t(CHUNK * CB)), yt(size_t(CHUNK * CB));
    float dtb[CHUNK], dub[CHUNK], yb[CHUNK];
#pragma omp for collapse(3) schedule(static)
    for (int64_t bi = 0; bi < b; ++bi)
      for (int64_t grp = 0; grp < g; ++grp)
        for (int64_t blk = 0; blk < blocks_per_group; ++blk) {
          const int64_t c0 = grp * dg + blk * CB;
          const int64_t cnt = std::min<int64_t>(CB, (grp + 1) * dg - c0);
          std::fill(h.begin(), h.end(), 0.0f);
          std::fill(at.begin(), at.end(), 0.0f);
          std::fill(dtt.begin(), dtt.end(), 0.0f);
          std::fill(dut.begin(), dut.end(), 0.0f);
          for (int64_t c = 0; c < cnt; ++c)
            for (int64_t k = 0; k < n; ++k) {
              at[size_t(k * CB + c)] = A[(c0 + c) * n + k];
              if (fixed) bc[size_t(k * CB + c)] = B[(c0 + c) * n + k], cc[size_t(k * CB + c)] = C[(c0 + c) * n + k];
            }
          const float* bs = fixed ? nullptr : B + (bi * g + grp) * n * l;
          const float* cs = fixed ? nullptr : C + (bi * g + grp) * n * l;
          for (int64_t t0 = 0; t0 < l; t0 += CHUNK) {
            const int64_t tl = std::min<int64_t>(CHUNK, l - t0);
            for (int64_t c = 0; c < cnt; ++c) {
              const int64_t row = (bi * d + c0 + c) * l + t0;
              prepare_dt(delta + row, u + row, delta_bias ? delta_bias[c0 + c] : 0.0f, delta_softplus != 0, tl, dtb, dub);
              for (int64_t t = 0; t < tl; ++t) dtt[size_t(t * CB + c)] = dtb[t], dut[size_t(t * CB + c)] = dub[t];
            }
            for (int64_t t = 0; t < tl; ++t) {
              float* __restrict yr = yt.data() + t * CB;
              const float* __restrict dr = dtt.data() + t * CB;
              const float* __restrict ur = dut.data() + t * CB;
#pragma omp simd
              for (int64_t c = 0; c < CB; ++c) yr[c] = 0.0f;
              for (int64_t k = 0; k < n; ++k) {
                float* __restrict hk = h.data() + k * CB;
                const float* __restrict ak = at.data() + k * CB;
                if (fixed) {
                  const float* __restrict bk = bc.data() + k * CB;
                  const float* __restrict ck = cc.data() + k * CB;
#pragma omp simd
                  for (int64_t c = 0; c < CB; ++c) {
                    hk[c] = s_exp<EXP_DEGREE>(dr[c] * ak[c]) * hk[c] + ur[c] * bk[c];
                    yr[c] += hk[c] * ck[c];
                  }
                } else {
                  const float bk = bs[k * l + t0 + t], ck = cs[k * l + t0 + t];
#pragma omp simd
                  for (int64_t c = 0; c < CB; ++c) {
                    hk[c] = s_exp<EXP_DEGREE>(dr[c] * ak[c]) * hk[c] + ur[c] * bk;
                    yr[c] += hk[c] * ck;
                  }
                }
              }
            }
            for (int64_t c = 0; c < cnt; ++c) {
              const int64_t row = (bi * d + c0 + c) * l + t0;
              for (int64_t t = 0; t < tl; ++t) yb[t] = yt[size_t(t * CB + c)];
              finish_y(yb, u + row, z ? z + row : nullptr, D ? D[c0 + c] : 0.0f, tl, y + row);
            }
          }
          if (last_state)
            for (int64_t c = 0; c < cnt; ++c)
              for (int64_t k = 0; k < n; ++k) last_state[(bi * d + c0 + c) * n + k] = h[size_t(k * CB + c)];
        }
  }
}
