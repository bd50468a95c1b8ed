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
#include <memory>
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

// The cache lines of the time chunk PREFETCH_AHEAD chunks after this one (its rows are more streams than the
// hardware prefetchers follow), requested a few per step while this chunk's recurrence runs, not all at once
// (that would stall on the fill buffers). The lines are listed once per block, for its first chunk, and shifted
// to the chunk wanted; past the block's last chunk that is in the blocks after it, whose rows follow this
// block's (blocks run in channel order; past the last rows, prefetches never fault). Two chunks ahead ran 1.5-4%
// faster than one on cold data (single core, AVX-512).
constexpr int64_t PREFETCH_AHEAD = 2;
struct Prefetches {
  std::vector<const char*> lines;
  size_t next = 0, per_step = 0;
  int64_t shift = 0;  // bytes from the listed lines to the lines wanted now

  // Aims at the chunk PREFETCH_AHEAD after chunk t0 of a block of cnt rows of l steps.
  void aim(int64_t t0, int64_t cnt, int64_t l) {
    const int64_t chunks = (l + CHUNK - 1) / CHUNK, target = t0 / CHUNK + PREFETCH_AHEAD;
    next = 0;
    shift = (target / chunks * cnt * l + target % chunks * CHUNK) * int64_t(sizeof(float));
  }

  // The recurrence issues through a copy in registers: through the reference, the position was stored to memory
  // at every step, and the loop ran about 4% slower (single core, AVX-512).
  struct Cursor {
    const char* const* line;
    const char* const* end;
    int64_t shift;
    size_t per_step;
    // (The address in integers: the lines aimed at may lie past the tensors, where a prefetch is harmless but a
    // pointer would not be.)
    void issue() {
      for (size_t i = 0; i < per_step && line < end; ++i)
        __builtin_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(*line++) + shift), 0, 2);
    }
  };
  Cursor cursor() const { return {lines.data() + next, lines.data() + lines.size(), shift, per_step}; }
  void resume_after(const Cursor& c) { next = size_t(c.line - lines.data()); }
};

// B or C of a group's states: per-channel vectors (fixed layout, state rows of CB floats) or scalars broadcast
// over the lanes (variable layout, state rows of CHUNK steps). Based at the group's first state, so that every
// state's value lies at a constant offset from one pointer (from state 0, gcc kept a pointer per state of the
// groups after the first and spilled them).
template <bool Broadcast>
struct StateRows {
  const float* base;
  StateRows from(int64_t k0) const { return {base + k0 * (Broadcast ? CHUNK : CB)}; }
  vf at(int s, int64_t t, int x) const {
    if constexpr (Broadcast)
      return v_set1(base[s * CHUNK + t]);
    else
      return v_load(base + s * CB + x * VW);
  }
};

// States [k0, k0 + KS) of one channel block over one time chunk; b and c hold B and C from state k0.
template <int KS, bool First, typename Rows>
inline void scan_states(int64_t k0, int64_t tl, float* __restrict h, const float* __restrict at,
                        const float* __restrict dtt, const float* __restrict dut, float* __restrict yt, Rows b,
                        Rows c, Prefetches& next) {
  vf hr[KS][CV];
#pragma GCC unroll 16
  for (int s = 0; s < KS; ++s)
#pragma GCC unroll 4
    for (int x = 0; x < CV; ++x) hr[s][x] = v_load(h + (k0 + s) * CB + x * VW);
  Prefetches::Cursor prefetch = next.cursor();
  for (int64_t t = 0; t < tl; ++t) {
    prefetch.issue();
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
        hr[s][x] = v_fma(decay, hr[s][x], v_mul(duv[x], b.at(s, t, x)));
        yv[x] = v_fma(hr[s][x], c.at(s, t, x), yv[x]);
      }
    }
#pragma GCC unroll 4
    for (int x = 0; x < CV; ++x) v_store(yt + t * CB + x * VW, yv[x]);
  }
  next.resume_after(prefetch);
#pragma GCC unroll 16
  for (int s = 0; s < KS; ++s)
#pragma GCC unroll 4
    for (int x = 0; x < CV; ++x) v_store(h + (k0 + s) * CB + x * VW, hr[s][x]);
}

// All n states in groups of SG (the last group through the narrower instantiations).
template <typename Rows>
inline void scan_chunk(int64_t n, int64_t tl, float* h, const float* at, const float* dtt, const float* dut, float* yt,
                       Rows b, Rows c, Prefetches& next) {
  const int64_t groups = n / SG + n % SG / 4 + n % 4;
  next.per_step = (next.lines.size() + size_t(tl * groups) - 1) / size_t(tl * groups);
  int64_t k0 = 0;
  // The first group starts y from zero; the others add to what it stored.
  const auto group = [&]<int KS>() {
    if (k0 == 0)
      scan_states<KS, true>(k0, tl, h, at, dtt, dut, yt, b.from(k0), c.from(k0), next);
    else
      scan_states<KS, false>(k0, tl, h, at, dtt, dut, yt, b.from(k0), c.from(k0), next);
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
    // pointers (stride l) spilled registers and held the state groups to 4. Left uninitialized: zeroing them
    // cost 1-2% of a call at l = 2048 (every element read is written first).
    const size_t chunked_floats = fixed ? 0 : size_t((l + CHUNK - 1) / CHUNK * n * CHUNK);
    const auto b_chunks = std::make_unique_for_overwrite<float[]>(chunked_floats);
    const auto c_chunks = std::make_unique_for_overwrite<float[]>(chunked_floats);
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
          for (const float* rows : {delta, u, z, static_cast<const float*>(y)})
            if (rows)
              for (int64_t c = 0; c < cnt; ++c)
                for (int64_t byte = 0; byte < CHUNK * int64_t(sizeof(float)); byte += 64)
                  next.lines.push_back(reinterpret_cast<const char*>(rows + (bi * d + c0 + c) * l) + byte);
          if (!fixed && laid_out != bi * g + grp) {
            laid_out = bi * g + grp;
            const float* bs = B + laid_out * n * l;
            const float* cs = C + laid_out * n * l;
            for (int64_t t0 = 0; t0 < l; t0 += CHUNK) {
              const int64_t steps = std::min<int64_t>(CHUNK, l - t0);
              for (int64_t k = 0; k < n; ++k) {
                std::copy_n(bs + k * l + t0, steps, b_chunks.get() + (t0 * n + k * CHUNK));
                std::copy_n(cs + k * l + t0, steps, c_chunks.get() + (t0 * n + k * CHUNK));
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
            // (Where the chunk aimed at is a shorter last one, the lines past its rows' ends are prefetched too:
            // other rows' lines.)
            next.aim(t0, cnt, l);
            if (fixed)
              scan_chunk(n, tl, h.data(), at.data(), dtt.data(), dut.data(), yt.data(), StateRows<false>{bc.data()},
                         StateRows<false>{cc.data()}, next);
            else
              scan_chunk(n, tl, h.data(), at.data(), dtt.data(), dut.data(), yt.data(),
                         StateRows<true>{b_chunks.get() + t0 * n}, StateRows<true>{c_chunks.get() + t0 * n}, next);
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
