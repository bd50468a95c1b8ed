// selective_scan families (Mamba-1 forward): per (batch, channel) the recurrence
// h = exp(dt*A) h + dt*B*u over time, y = C.h (+ D*u) (* silu(z)); B/C fixed (d, n) or per (b, g, n, l).
#include "core/error.hpp"
#include "proposers/builtin/cpu/common.hpp"

namespace ksearch::builtin::cpu {
namespace {

// Vectorizable softplus and silu shared by both families.
constexpr const char* kHelpers = R"CPP(
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
)CPP";

std::string render_state_vector() {
  return std::string(kHelpers) + R"CPP(
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
)CPP";
}

std::string render_channel_vector() {
  return std::string(kHelpers) + R"CPP(
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
)CPP";
}

// The decay exp(dt*A) compounds over hundreds of steps, so a biased low-degree exp shows up in y:
// degree 5 already uses most of the absolute tolerance on the long workloads.
Knob scan_exp_knob() {
  return {"exp_degree", "degree of the exp polynomial (6: rel. error ~1e-7, as accurate as libm here; 7: ~1e-8)",
          {6, 7}, 6};
}

Knob chunk_knob(int64_t def) {
  return {"chunk", "time steps per chunk (the chunk's transposed buffers stay in L1)", {16, 32, 64, 128, 256}, def};
}

std::string render(const std::string& family, const KnobValues&) {
  if (family == "state_vector") return render_state_vector();
  if (family == "channel_vector") return render_channel_vector();
  throw Error("unknown selective_scan family " + family);
}

}  // namespace

const TaskTemplates& selective_scan_templates() {
  static const TaskTemplates t{
      "selective_scan",
      {"u", "delta", "A", "B", "C", "D", "z", "delta_bias", "y", "last_state", "b", "d", "l", "n", "g", "bc_layout",
       "delta_softplus"},
      {
          {"state_vector",
           "Fused scan with the state vector in SIMD registers, OpenMP over (batch, channel block)",
           "Each channel's state h (n = 16 floats = one AVX-512 register) stays in registers across time, so the "
           "kernel reads u, delta, z and B/C once and writes y once. B and C chunks are transposed to [time][state] "
           "once per channel block and group, softplus and the D/silu(z) epilogue are vectorized over time, and "
           "exp(dt*A) uses a polynomial exp; the price is one horizontal sum per step for y.",
           3,
           20.0,
           {vector_bits_knob(), chunk_knob(64),
            {"channels_per_task", "channels per OpenMP work item (they share the transposed B/C chunk)",
             {1, 4, 16, 64}, 16},
            scan_exp_knob(), threads_knob()}},
          {"channel_vector",
           "Fused scan vectorized across channels, B/C broadcast per step, OpenMP over (batch, group, block)",
           "SIMD lanes hold CHANNEL_BLOCK channels of one group, so the shared B[t] and C[t] state values are "
           "scalar broadcasts and y accumulates lane-wise with no horizontal sums; the state (n x block) lives in "
           "L1. u, dt (with a vectorized softplus) and y are transposed per time chunk so every inner loop is "
           "unit-stride; exp(dt*A) uses a polynomial exp.",
           3,
           12.0,
           {{"channel_block", "channels per SIMD block (lanes x vectors)", {8, 16, 32, 64}, 16}, chunk_knob(64),
            scan_exp_knob(), threads_knob()}},
      },
      render};
  return t;
}

}  // namespace ksearch::builtin::cpu
