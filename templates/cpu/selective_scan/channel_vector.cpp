// selective_scan, built-in cpu template family channel_vector: Fused scan vectorized across channels with the state in registers, B/C broadcast per step, OpenMP over (batch, group, block).
// Knobs: ksearch replaces each #define below with the value it tries (channel_vector.toml lists them).
#define VECTOR_BITS 512
#define CHANNEL_VECTORS 1
#define STATE_GROUP 8
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
// 8 states per group (the default) ran fastest on AVX-512 and on AVX2 in interleaved single-core runs once B and
// C came from per-chunk buffers (BENCHMARKS); before, their n row pointers spilled registers beyond 4.
constexpr int CV = CHANNEL_VECTORS;
constexpr int64_t CB = int64_t(CV) * VW;
constexpr int SG = STATE_GROUP;

// The cache lines of the block's next time chunk (its rows are more streams than the hardware prefetchers
// follow), requested a few per step while this chunk's recurrence runs, not all at once (that would stall
// on the fill buffers). The lines are listed once per block, for its second chunk; chunk t0 shifts them by
// t0 floats.
struct Prefetches {
  std::vector<const char*> lines;
  size_t next = 0, per_step = 0;
  int64_t shift = 0;  // bytes from the listed lines to this chunk's next chunk
  void issue() {
    for (size_t i = 0; i < per_step && next < lines.size(); ++i) __builtin_prefetch(lines[next++] + shift, 0, 2);
  }
};

// States [k0, k0 + ks) of one channel block over one time chunk; bk(k, t), ck(k, t) give B and C as
// vectors over the block's channels (broadcasts for the variable layout, per-channel rows when fixed).
template <int KS, bool First, typename BAt, typename CAt>
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
      dtv[x] = v_load(dtt + t * CB + x * VW), duv[x] = v_load(dut + t * CB + x * VW),
      yv[x] = First ? v_set1(0.0f) : v_load(yt + t * CB + x * VW);
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
  // The first group starts y from zero; the others add to what it stored.
  const auto group = [&]<int KS>() {
    if (k0 == 0)
      scan_states<KS, true>(k0, tl, h, at, dtt, dut, yt, bk, ck, next);
    else
      scan_states<KS, false>(k0, tl, h, at, dtt, dut, yt, bk, ck, next);
    k0 += KS;
  };
  while (k0 + SG <= n) group.template operator()<SG>();
  while (k0 + 4 <= n) group.template operator()<4>();
  while (k0 < n) group.template operator()<1>();
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
    std::vector<float> yb(size_t(CB * CHUNK));  // y of the chunk per channel, [channel][time]
    Prefetches next;
    // The variable B and C of the thread's current (batch, group), laid out [chunk][state][time] with CHUNK steps
    // per state: the recurrence reads every state's value at a constant offset from one pointer, where n row
    // pointers (stride l) spilled registers and held the state groups to 4.
    std::vector<float> b_chunks, c_chunks;
    int64_t laid_out = -1;
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
          next.lines.clear();
          if (CHUNK < l)
            for (const float* rows : {delta, u, z, static_cast<const float*>(y)})
              if (rows)
                for (int64_t c = 0; c < cnt; ++c)
                  for (int64_t byte = 0; byte < CHUNK * int64_t(sizeof(float)); byte += 64)
                    next.lines.push_back(reinterpret_cast<const char*>(rows + (bi * d + c0 + c) * l + CHUNK) + byte);
          if (!fixed && laid_out != bi * g + grp) {
            laid_out = bi * g + grp;
            const float* bs = B + laid_out * n * l;
            const float* cs = C + laid_out * n * l;
            b_chunks.resize(size_t((l + CHUNK - 1) / CHUNK * n * CHUNK));
            c_chunks.resize(b_chunks.size());
            for (int64_t t0 = 0; t0 < l; t0 += CHUNK) {
              const int64_t steps = std::min<int64_t>(CHUNK, l - t0);
              for (int64_t k = 0; k < n; ++k) {
                std::copy_n(bs + k * l + t0, steps, b_chunks.begin() + (t0 * n + k * CHUNK));
                std::copy_n(cs + k * l + t0, steps, c_chunks.begin() + (t0 * n + k * CHUNK));
              }
            }
          }
          // Lane j of vector x reads the row of channel first[x] + j (lanes past the block's channels repeat
          // its last row: finite values that are never written back). dt and u*dt go to [time][channel]
          // buffers: VW steps at a time by loading VW rows and transposing them in registers, the chunk's
          // last steps (fewer than VW) by gathers.
          int64_t first[CV];
          vi offsets[CV];
          vf bias[CV];
          const float* delta_rows[CV][VW];
          const float* u_rows[CV][VW];
          for (int x = 0; x < CV; ++x) {
            const int64_t lanes = std::clamp<int64_t>(cnt - x * VW, 1, VW);
            first[x] = c0 + std::min<int64_t>(x * VW, cnt - 1);
            offsets[x] = v_offsets(l, int(lanes));
            bias[x] = delta_bias ? v_gather(delta_bias + first[x], v_offsets(1, int(lanes))) : v_set1(0.0f);
            for (int64_t j = 0; j < VW; ++j) {
              const int64_t row = (bi * d + first[x] + std::min(j, lanes - 1)) * l;
              delta_rows[x][j] = delta + row, u_rows[x][j] = u + row;
            }
          }
          const auto store_dt = [&](int64_t t, int x, vf raw) {
            const vf dt = delta_softplus ? v_softplus(v_add(raw, bias[x])) : v_add(raw, bias[x]);
            v_store(dtt.data() + t * CB + x * VW, dt);
          };
          const auto store_du = [&](int64_t t, int x, vf uv) {
            v_store(dut.data() + t * CB + x * VW, v_mul(v_load(dtt.data() + t * CB + x * VW), uv));
          };
          for (int64_t t0 = 0; t0 < l; t0 += CHUNK) {
            const int64_t tl = std::min<int64_t>(CHUNK, l - t0);
            int64_t t = 0;
            for (; t + VW <= tl; t += VW)
              for (int x = 0; x < CV; ++x) {
                vf r[VW];
#pragma GCC unroll 16
                for (int j = 0; j < VW; ++j) r[j] = v_load(delta_rows[x][j] + t0 + t);
                v_transpose(r);
#pragma GCC unroll 16
                for (int j = 0; j < VW; ++j) store_dt(t + j, x, r[j]);
#pragma GCC unroll 16
                for (int j = 0; j < VW; ++j) r[j] = v_load(u_rows[x][j] + t0 + t);
                v_transpose(r);
#pragma GCC unroll 16
                for (int j = 0; j < VW; ++j) store_du(t + j, x, r[j]);
              }
            for (; t < tl; ++t)
              for (int x = 0; x < CV; ++x) {
                const int64_t at_t = (bi * d + first[x]) * l + t0 + t;
                store_dt(t, x, v_gather(delta + at_t, offsets[x]));
                store_du(t, x, v_gather(u + at_t, offsets[x]));
              }
            // The last chunk has no next one: nothing to issue. (Before a shorter last chunk, the lines past its
            // rows' ends are prefetched too: other rows' lines, never a fault.)
            next.next = t0 + CHUNK < l ? 0 : next.lines.size();
            next.shift = t0 * int64_t(sizeof(float));
            if (fixed) {
              const float* bp = bc.data();
              const float* cp = cc.data();
              scan_chunk(n, tl, h.data(), at.data(), dtt.data(), dut.data(), yt.data(),
                         [bp](int64_t k, int64_t, int x) { return v_load(bp + k * CB + x * VW); },
                         [cp](int64_t k, int64_t, int x) { return v_load(cp + k * CB + x * VW); }, next);
            } else {
              const float* bp = b_chunks.data() + t0 * n;
              const float* cp = c_chunks.data() + t0 * n;
              scan_chunk(n, tl, h.data(), at.data(), dtt.data(), dut.data(), yt.data(),
                         [bp](int64_t k, int64_t t, int) { return v_set1(bp[k * CHUNK + t]); },
                         [cp](int64_t k, int64_t t, int) { return v_set1(cp[k * CHUNK + t]); }, next);
            }
            // yt back to rows, VW steps at a time (CHUNK is a multiple of VW; the steps past tl are read, not used).
            for (int64_t t = 0; t < tl; t += VW)
              for (int x = 0; x < CV; ++x)
                v_transpose_tile(yt.data() + t * CB + x * VW, CB, yb.data() + x * VW * CHUNK + t, CHUNK);
            for (int64_t c = 0; c < cnt; ++c) {
              const int64_t row = (bi * d + c0 + c) * l + t0;
              finish_y(yb.data() + c * CHUNK, u + row, z ? z + row : nullptr, D ? D[c0 + c] : 0.0f, tl, y + row);
            }
          }
          if (last_state)
            for (int64_t c = 0; c < cnt; ++c)
              for (int64_t k = 0; k < n; ++k) last_state[(bi * d + c0 + c) * n + k] = h[size_t(k * CB + c)];
        }
  }
}
