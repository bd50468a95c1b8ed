// selective_scan, built-in cpu template family state_vector: Fused scan with the state vector in SIMD registers, OpenMP over (batch, channel block).
// Knobs: ksearch replaces each #define below with the value it tries (state_vector.toml lists them).
#define VECTOR_BITS 512
#define CHUNK 64
#define CHANNELS_PER_TASK 16
#define EXP_DEGREE 6
#define THREADS 1

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../common/vector.h"
#include "scan_helpers.h"

// One channel at a time with its state h (n values, padded to NP = whole vectors) in vector registers.
// B/C chunks are transposed to [time][state] once per (batch, group, chunk) and shared by the channels
// of a block; dt, softplus and the D/z epilogue run vectorized over time outside the recurrence.
template <int NVC>  // state vectors held in registers; 0 = any count, kept in memory
inline void scan_chunk(int nv, float* __restrict h, const float* __restrict a, const float* __restrict bt,
                       int64_t bstride, const float* __restrict ct, int64_t cstride, const float* __restrict dtb,
                       const float* __restrict dub, int64_t tl, float* __restrict yb) {
  if constexpr (NVC > 0) {
    vf hr[NVC], ar[NVC];
#pragma GCC unroll 4
    for (int v = 0; v < NVC; ++v) hr[v] = v_load(h + v * VW), ar[v] = v_load(a + v * VW);
    for (int64_t t = 0; t < tl; ++t) {
      const vf dtv = v_set1(dtb[t]), duv = v_set1(dub[t]);
      vf yv = v_set1(0.0f);
#pragma GCC unroll 4
      for (int v = 0; v < NVC; ++v) {
        hr[v] = v_fma(v_exp<EXP_DEGREE>(v_mul(dtv, ar[v])), hr[v], v_mul(duv, v_load(bt + t * bstride + v * VW)));
        yv = v_fma(hr[v], v_load(ct + t * cstride + v * VW), yv);
      }
      yb[t] = v_hsum(yv);
    }
#pragma GCC unroll 4
    for (int v = 0; v < NVC; ++v) v_store(h + v * VW, hr[v]);
  } else {
    for (int64_t t = 0; t < tl; ++t) {
      const vf dtv = v_set1(dtb[t]), duv = v_set1(dub[t]);
      vf yv = v_set1(0.0f);
      for (int v = 0; v < nv; ++v) {
        const vf hv = v_fma(v_exp<EXP_DEGREE>(v_mul(dtv, v_load(a + v * VW))), v_load(h + v * VW),
                            v_mul(duv, v_load(bt + t * bstride + v * VW)));
        v_store(h + v * VW, hv);
        yv = v_fma(hv, v_load(ct + t * cstride + v * VW), yv);
      }
      yb[t] = v_hsum(yv);
    }
  }
}

extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C,
                               const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                               int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int32_t bc_layout,
                               int32_t delta_softplus) {
  const int64_t np = (n + VW - 1) / VW * VW;  // state padded to whole vectors (pads stay zero)
  const int nv = int(np / VW);
  const bool fixed = bc_layout == 0;
  const int64_t dg = d / g;
  const int64_t blocks = (d + CHANNELS_PER_TASK - 1) / CHANNELS_PER_TASK;
#pragma omp parallel if (THREADS)
  {
    std::vector<float> bt(size_t(CHUNK * np)), ct(size_t(CHUNK * np)), hb(size_t(CHANNELS_PER_TASK * np));
    std::vector<float> ab(size_t(CHANNELS_PER_TASK * np)), bf(size_t(CHANNELS_PER_TASK * np)), cf(size_t(CHANNELS_PER_TASK * np));
    float dtb[CHUNK], dub[CHUNK], yb[CHUNK];
#pragma omp for collapse(2) schedule(static)
    for (int64_t bi = 0; bi < b; ++bi)
      for (int64_t blk = 0; blk < blocks; ++blk) {
        const int64_t c0 = blk * CHANNELS_PER_TASK, c1 = std::min<int64_t>(d, c0 + CHANNELS_PER_TASK);
        std::fill(hb.begin(), hb.end(), 0.0f);
        std::fill(ab.begin(), ab.end(), 0.0f);
        for (int64_t i = c0; i < c1; ++i)
          for (int64_t k = 0; k < n; ++k) {
            ab[(i - c0) * np + k] = A[i * n + k];
            if (fixed) bf[(i - c0) * np + k] = B[i * n + k], cf[(i - c0) * np + k] = C[i * n + k];
          }
        for (int64_t t0 = 0; t0 < l; t0 += CHUNK) {
          const int64_t tl = std::min<int64_t>(CHUNK, l - t0);
          int64_t loaded_group = -1;
          for (int64_t i = c0; i < c1; ++i) {
            const int64_t row = (bi * d + i) * l + t0;
            const float* bptr;
            const float* cptr;
            int64_t stride = 0;
            if (fixed) {
              bptr = bf.data() + (i - c0) * np;
              cptr = cf.data() + (i - c0) * np;
            } else {
              const int64_t grp = i / dg;
              if (grp != loaded_group) {
                const float* bs = B + (bi * g + grp) * n * l + t0;
                const float* cs = C + (bi * g + grp) * n * l + t0;
                for (int64_t k = 0; k < np; ++k)
                  for (int64_t t = 0; t < tl; ++t) {
                    bt[size_t(t * np + k)] = k < n ? bs[k * l + t] : 0.0f;
                    ct[size_t(t * np + k)] = k < n ? cs[k * l + t] : 0.0f;
                  }
                loaded_group = grp;
              }
              bptr = bt.data();
              cptr = ct.data();
              stride = np;
            }
            prepare_dt(delta + row, u + row, delta_bias ? delta_bias[i] : 0.0f, delta_softplus != 0, tl, dtb, dub);
            float* h = hb.data() + (i - c0) * np;
            const float* a = ab.data() + (i - c0) * np;
            switch (nv) {
              case 1: scan_chunk<1>(nv, h, a, bptr, stride, cptr, stride, dtb, dub, tl, yb); break;
              case 2: scan_chunk<2>(nv, h, a, bptr, stride, cptr, stride, dtb, dub, tl, yb); break;
              case 3: scan_chunk<3>(nv, h, a, bptr, stride, cptr, stride, dtb, dub, tl, yb); break;
              case 4: scan_chunk<4>(nv, h, a, bptr, stride, cptr, stride, dtb, dub, tl, yb); break;
              default: scan_chunk<0>(nv, h, a, bptr, stride, cptr, stride, dtb, dub, tl, yb); break;
            }
            finish_y(yb, u + row, z ? z + row : nullptr, D ? D[i] : 0.0f, tl, y + row);
          }
        }
        if (last_state)
          for (int64_t i = c0; i < c1; ++i)
            for (int64_t k = 0; k < n; ++k) last_state[(bi * d + i) * n + k] = hb[size_t((i - c0) * np + k)];
      }
  }
}
