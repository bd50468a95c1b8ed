// selective_scan, built-in cpu template family channel_vector: Fused scan vectorized across channels with the state in registers, B/C broadcast per step, OpenMP over (batch, group, block).
// Knobs: ksearch replaces each #define below with the value it tries (channel_vector.toml lists them).
#define VECTOR_BITS 512
#define CHANNEL_VECTORS 1
#define STATE_GROUP 0
#define CHUNK 64
#define EXP_DEGREE 5
#define THREADS 1

#include <algorithm>
#include <cstdint>
#include <vector>

#include "../common/vector.h"
#include "scan_helpers.h"

// SIMD lanes over CB channels of one group: B[k, t] and C[k, t] are then scalars shared by all lanes (no
// transposes of B/C, no horizontal sums). Per time chunk, u*dt and dt are transposed to [time][channel];
// then STATE_GROUP states at a time keep their h vectors in registers for the whole chunk while y
// accumulates lane-wise in a [time][channel] buffer, so the recurrence touches memory only for inputs.
// STATE_GROUP 0 = sized for the target: 4 with 32 vector registers (AVX-512), 8 with 16 (AVX2), the faster of
// the two on each in interleaved single-core runs (BENCHMARKS, the scan's third pass).
constexpr int CV = CHANNEL_VECTORS;
constexpr int64_t CB = int64_t(CV) * VW;
constexpr int SG = STATE_GROUP > 0 ? STATE_GROUP : (kVectorRegisters >= 32 ? 4 : 8);

// The cache lines of the block's next time chunk (its rows are more streams than the hardware prefetchers
// follow), requested a few per step while this chunk's recurrence runs, not all at once (that would stall
// on the fill buffers).
struct Prefetches {
  std::vector<const char*> lines;
  size_t next = 0, per_step = 0;
  void issue() {
    for (size_t i = 0; i < per_step && next < lines.size(); ++i) __builtin_prefetch(lines[next++], 0, 2);
  }
};

// States [k0, k0 + ks) of one channel block over one time chunk; bk(k, t), ck(k, t) give B and C as
// vectors over the block's channels (broadcasts for the variable layout, per-channel rows when fixed).
template <int KS, typename BAt, typename CAt>
inline void scan_states(int64_t k0, int64_t tl, float* __restrict h, const float* __restrict at,
                        const float* __restrict dtt, const float* __restrict dut, float* __restrict yt, BAt bk,
                        CAt ck, Prefetches& next) {
  vf hr[KS][CV];
#pragma GCC unroll 16
  for (int s = 0; s < KS; ++s)
#pragma GCC unroll 4
    for (int x = 0; x < CV; ++x) hr[s][x] = v_load(h + (k0 + s) * CB + x * VW);
  for (int64_t t = 0; t < tl; ++t) {
    next.issue();
    vf dtv[CV], duv[CV], yv[CV];
#pragma GCC unroll 4
    for (int x = 0; x < CV; ++x)
      dtv[x] = v_load(dtt + t * CB + x * VW), duv[x] = v_load(dut + t * CB + x * VW), yv[x] = v_load(yt + t * CB + x * VW);
#pragma GCC unroll 16
    for (int s = 0; s < KS; ++s) {
      const int64_t k = k0 + s;
#pragma GCC unroll 4
      for (int x = 0; x < CV; ++x) {
        const vf decay = v_exp2_product<EXP_DEGREE>(dtv[x], v_load(at + k * CB + x * VW));  // at holds A log2(e)
        hr[s][x] = v_fma(decay, hr[s][x], v_mul(duv[x], bk(k, t, x)));
        yv[x] = v_fma(hr[s][x], ck(k, t, x), yv[x]);
      }
    }
#pragma GCC unroll 4
    for (int x = 0; x < CV; ++x) v_store(yt + t * CB + x * VW, yv[x]);
  }
#pragma GCC unroll 16
  for (int s = 0; s < KS; ++s)
#pragma GCC unroll 4
    for (int x = 0; x < CV; ++x) v_store(h + (k0 + s) * CB + x * VW, hr[s][x]);
}

// All n states in groups of SG (the last group through the narrower instantiations).
template <typename BAt, typename CAt>
inline void scan_chunk(int64_t n, int64_t tl, float* h, const float* at, const float* dtt, const float* dut, float* yt,
                       BAt bk, CAt ck, Prefetches& next) {
  const int64_t groups = n / SG + n % SG / 4 + n % 4;
  next.per_step = (next.lines.size() + size_t(tl * groups) - 1) / size_t(tl * groups);
  int64_t k0 = 0;
  for (; k0 + SG <= n; k0 += SG) scan_states<SG>(k0, tl, h, at, dtt, dut, yt, bk, ck, next);
  for (; k0 + 4 <= n; k0 += 4) scan_states<4>(k0, tl, h, at, dtt, dut, yt, bk, ck, next);
  for (; k0 < n; ++k0) scan_states<1>(k0, tl, h, at, dtt, dut, yt, bk, ck, next);
}

extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C,
                               const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                               int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int32_t bc_layout,
                               int32_t delta_softplus) {
  const bool fixed = bc_layout == 0;
  const int64_t dg = d / g;
  const int64_t blocks_per_group = (dg + CB - 1) / CB;
#pragma omp parallel if (THREADS)
  {
    // Lanes past the block's channels run with A = 0 on finite inputs and are never written back.
    std::vector<float> h(size_t(n * CB)), at(size_t(n * CB)), bc(size_t(n * CB)), cc(size_t(n * CB));
    std::vector<float> dtt(size_t(CHUNK * CB)), dut(size_t(CHUNK * CB)), yt(size_t(CHUNK * CB));
    float yb[(CHUNK + VW - 1) / VW * VW];
    Prefetches next;
    const vi time_offsets = v_offsets(CB, VW);  // one channel's column of yt
#pragma omp for collapse(3) schedule(static)
    for (int64_t bi = 0; bi < b; ++bi)
      for (int64_t grp = 0; grp < g; ++grp)
        for (int64_t blk = 0; blk < blocks_per_group; ++blk) {
          const int64_t c0 = grp * dg + blk * CB;
          const int64_t cnt = std::min<int64_t>(CB, (grp + 1) * dg - c0);
          std::fill(h.begin(), h.end(), 0.0f);
          std::fill(at.begin(), at.end(), 0.0f);
          for (int64_t c = 0; c < cnt; ++c)
            for (int64_t k = 0; k < n; ++k) {
              at[size_t(k * CB + c)] = A[(c0 + c) * n + k] * kLog2e;
              if (fixed) bc[size_t(k * CB + c)] = B[(c0 + c) * n + k], cc[size_t(k * CB + c)] = C[(c0 + c) * n + k];
            }
          const float* bs = fixed ? nullptr : B + (bi * g + grp) * n * l;
          const float* cs = fixed ? nullptr : C + (bi * g + grp) * n * l;
          // Vector x of the block reads rows first[x] + lane (lanes past the block's channels repeat its
          // last row: finite values that are never written back) with gathers, so dt and u*dt come out
          // in [time][channel] order with no transposes.
          int64_t first[CV];
          vi offsets[CV];
          vf bias[CV];
          for (int x = 0; x < CV; ++x) {
            const int64_t lanes = std::clamp<int64_t>(cnt - x * VW, 1, VW);
            first[x] = c0 + std::min<int64_t>(x * VW, cnt - 1);
            offsets[x] = v_offsets(l, int(lanes));
            bias[x] = delta_bias ? v_gather(delta_bias + first[x], v_offsets(1, int(lanes))) : v_set1(0.0f);
          }
          for (int64_t t0 = 0; t0 < l; t0 += CHUNK) {
            const int64_t tl = std::min<int64_t>(CHUNK, l - t0);
            for (int64_t t = 0; t < tl; ++t)
#pragma GCC unroll 4
              for (int x = 0; x < CV; ++x) {
                const int64_t at_t = (bi * d + first[x]) * l + t0 + t;
                const vf raw = v_add(v_gather(delta + at_t, offsets[x]), bias[x]);
                const vf dt = delta_softplus ? v_softplus(raw) : raw;
                v_store(dtt.data() + t * CB + x * VW, dt);
                v_store(dut.data() + t * CB + x * VW, v_mul(dt, v_gather(u + at_t, offsets[x])));
              }
            std::fill(yt.begin(), yt.begin() + tl * CB, 0.0f);
            next.lines.clear();
            next.next = 0;
            if (t0 + CHUNK < l) {
              const int64_t next_bytes = std::min<int64_t>(CHUNK, l - t0 - CHUNK) * int64_t(sizeof(float));
              for (const float* rows : {delta, u, z, static_cast<const float*>(y)})
                if (rows)
                  for (int64_t c = 0; c < cnt; ++c)
                    for (int64_t byte = 0; byte < next_bytes; byte += 64)
                      next.lines.push_back(reinterpret_cast<const char*>(rows + (bi * d + c0 + c) * l + t0 + CHUNK) + byte);
            }
            if (fixed) {
              const float* bp = bc.data();
              const float* cp = cc.data();
              scan_chunk(n, tl, h.data(), at.data(), dtt.data(), dut.data(), yt.data(),
                         [bp](int64_t k, int64_t, int x) { return v_load(bp + k * CB + x * VW); },
                         [cp](int64_t k, int64_t, int x) { return v_load(cp + k * CB + x * VW); }, next);
            } else {
              const float* bp = bs + t0;
              const float* cp = cs + t0;
              scan_chunk(n, tl, h.data(), at.data(), dtt.data(), dut.data(), yt.data(),
                         [bp, l](int64_t k, int64_t t, int) { return v_set1(bp[k * l + t]); },
                         [cp, l](int64_t k, int64_t t, int) { return v_set1(cp[k * l + t]); }, next);
            }
            for (int64_t c = 0; c < cnt; ++c) {
              const int64_t row = (bi * d + c0 + c) * l + t0;
              for (int64_t t = 0; t < tl; t += VW) v_store(yb + t, v_gather(yt.data() + t * CB + c, time_offsets));
              finish_y(yb, u + row, z ? z + row : nullptr, D ? D[c0 + c] : 0.0f, tl, y + row);
            }
          }
          if (last_state)
            for (int64_t c = 0; c < cnt; ++c)
              for (int64_t k = 0; k < n; ++k) last_state[(bi * d + c0 + c) * n + k] = h[size_t(k * CB + c)];
        }
  }
}
