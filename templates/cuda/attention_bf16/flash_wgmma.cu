// attention_bf16, built-in cuda template family flash_wgmma: Hopper flash attention (FA3-style): TMA loads by a producer warpgroup, warpgroup MMAs (wgmma) from 128-byte-swizzled shared memory.
// Knobs: ksearch replaces each #define below with the value it tries (flash_wgmma.toml lists them).
#define WGS 2
#define BKV 128
#define STAGES 3
#define PERSIST 1
#define SPEC 1
#define DEC_TK 128
#define DEC_STAGES 3
#define DEC_CLUSTER 8

#include "async_copy.cuh"
#include "tma.cuh"
#include "wgmma_bf16.cuh"

constexpr int D = 128;        // decode_split.cuh's head size; the prefill below is compiled for HD = 64 and 128
constexpr int BQ = 64 * WGS;  // query rows per block, 64 per consumer warpgroup
// WGS consumer warpgroups and one producer warpgroup that only loads (FA3's warp specialization).
constexpr int NT = 128 * (WGS + 1);  // threads per block
// A persistent block (PERSIST) keeps two Q buffers, so that the next work tile's Q loads during the current one.
constexpr int Q_BUFFERS = PERSIST ? 2 : 1;
// Shared memory of the prefill at head size HD: Q_BUFFERS buffers of Q, then kv_stages buffers of K and as many of V
// (each 1024-aligned: a tile is HD / 64 column halves of 128-byte rows), then the mbarriers; 1024 bytes of slack
// align the dynamic base. STAGES is a maximum: one fewer where that many would not fit.
template <int HD>
struct PrefillSmem {
  static constexpr uint32_t Q_BYTES = BQ * HD * 2, KV_BYTES = BKV * HD * 2, BARRIER_BYTES = 128;
  static constexpr size_t bytes(int stages) {
    return 1024 + Q_BUFFERS * size_t(Q_BYTES) + 2 * stages * size_t(KV_BYTES) + BARRIER_BYTES;
  }
  static constexpr int KV_STAGES = bytes(STAGES) <= 227 * 1024 ? STAGES : STAGES - 1;
  static constexpr size_t TOTAL = bytes(KV_STAGES);
  static_assert(TOTAL <= 227 * 1024, "shared memory per block: 227 KB at most");
  static_assert(8 * (2 * Q_BUFFERS + 4 * KV_STAGES) <= BARRIER_BYTES, "barrier space");
};
// Registers per thread after setmaxnreg: the loads need few; the consumers take the rest of the 64K.
constexpr int PRODUCER_REGS = WGS == 2 ? 40 : 32, CONSUMER_REGS = WGS == 2 ? 232 : 160;
static_assert(BKV == 64 || BKV == 128, "BKV is 64 or 128");
static_assert(WGS == 2 || WGS == 3, "WGS is 2 or 3");
static_assert(STAGES == 2 || STAGES == 3, "STAGES is 2 or 3");
static_assert(SPEC == 0 || SPEC == 1, "SPEC is 0 or 1");

// S (64 x BKV) = Q_wg K^T over the HD / 16 16-dim steps: step ks is 32 bytes into half ks / 4 of both tiles.
template <int HD>
__device__ __forceinline__ void issue_qk(float (&s)[BKV / 2], uint32_t q_tile, uint32_t k_tile) {
#pragma unroll
  for (int ks = 0; ks < HD / 16; ++ks) {
    const uint64_t dq = sw128_desc(q_tile + (ks / 4) * BQ * 128 + (ks % 4) * 32, 16, 1024);
    const uint64_t dk = sw128_desc(k_tile + (ks / 4) * BKV * 128 + (ks % 4) * 32, 16, 1024);
    wgmma_ss(s, dq, dk, ks > 0);
  }
}

// O (64 x HD) += P V: P from registers (the S accumulator layout is the A layout of P), V read transposed from its
// swizzled tile (keys along rows: 16 keys are 2048 bytes; the 64-dim halves are BKV * 128 bytes apart).
template <int HD>
__device__ __forceinline__ void issue_pv(float (&acc)[HD / 2], const uint32_t (&p)[BKV / 16][4], uint32_t v_tile) {
#pragma unroll
  for (int kk = 0; kk < BKV / 16; ++kk)
    wgmma_rs_tb(acc, p[kk], sw128_desc(v_tile + kk * 16 * 128, BKV * 128, 1024), 1);
}

// One work tile: a query tile of BQ rows of one head; the keys it sees are [0, kv_end), n_tiles tiles.
// Q's plane (batch x query head) and K/V's (batch x key/value head) in the tensor maps.
struct PrefillBlock {
  int q_plane, kv_plane;
  int q0, shift, n_tiles;  // causal: row i sees keys j <= i + shift
};
template <int HD>
__device__ __forceinline__ PrefillBlock prefill_block(int hq, int hkv, int lq, int lk, int causal, int work,
                                                   int q_tiles, int pairs) {
  // Work tiles run head by head (the blocks running at once share a few heads' K/V in L2). Causal tiles: heavy
  // first, or with pairs folded (heaviest, lightest, second heaviest, ...), so that a block's pair of
  // consecutive work tiles sees the same number of keys whichever pair it is.
  const int r = work % q_tiles, plane = work / q_tiles;
  const int tile = !causal ? r : !pairs ? q_tiles - 1 - r : r % 2 ? r / 2 : q_tiles - 1 - r / 2;
  const int h = plane % hq, bi = plane / hq;
  PrefillBlock blk;
  blk.q_plane = plane;
  blk.kv_plane = bi * hkv + h / (hq / hkv);
  blk.q0 = tile * BQ;
  blk.shift = lk - lq;
  const int kv_end = causal ? min(lk, min(lq - 1, blk.q0 + BQ - 1) + blk.shift + 1) : lk;
  blk.n_tiles = kv_end > 0 ? (kv_end + BKV - 1) / BKV : 0;
  return blk;
}

// A consumer thread's share of the online softmax: rows a (g) and b (g+8) of its warp's 16, their reference maxima
// (log2 units, scale applied), partial sums (this lane's columns; the quad's are added at the end) and O's accumulator.
template <int HD>
struct RowState {
  int lim_a, lim_b;  // the last key each row sees
  float m_a, m_b, l_a, l_b;
  float acc[HD / 2];
};

// A row's reference moves only when a tile's maximum exceeds it by more than this (log2 units; FA4's lazy
// rescale): p then stays below 2^8, exact enough in bf16 and fp32, and O's rescale is skipped in every tile where
// no row of the warp moves, which is most of them once the first tiles have set the maxima.
constexpr float kHeadroomLog2 = 8.0f;

// The maximum of a row's BKV / 4 elements of s (stride 4 from first) as a tree: a chain of fmaxf would put BKV / 4
// dependent instructions on the path from S to the exps.
template <int N>
__device__ __forceinline__ float row_max(const float (&s)[BKV / 2], int first) {
  float m[N];
#pragma unroll
  for (int i = 0; i < N; ++i) m[i] = fmaxf(s[first + 4 * (2 * i)], s[first + 4 * (2 * i) + 1]);
#pragma unroll
  for (int w = 1; w < N; w *= 2)
#pragma unroll
    for (int i = 0; i + w < N; i += 2 * w) m[i] = fmaxf(m[i], m[i + w]);
  return m[0];
}

// A row's new reference from the tile's maximum mx (raw units): returns O's rescale factor (1 where it stays).
// Selects, not a branch: the two rows of a thread differ.
__device__ __forceinline__ float move_reference(float& m, float mx, float scale_log2, float headroom) {
  const float top = mx * scale_log2;
  const bool moved = top > m + headroom;  // (a row with no visible key yet keeps -inf)
  const float c = fast_exp2(m - top);     // 0 from -inf
  m = moved ? top : m;
  return moved ? c : 1.0f;
}

// Keys past a row's last (lim) on an edge tile get S = -inf.
template <int HD>
__device__ __forceinline__ void mask_tile(float (&s)[BKV / 2], const RowState<HD>& st, int j0, int t) {
#pragma unroll
  for (int nb = 0; nb < BKV / 8; ++nb)
#pragma unroll
    for (int e = 0; e < 4; ++e) {
      const int j = j0 + nb * 8 + 2 * t + (e & 1);
      if (j > (e < 2 ? st.lim_a : st.lim_b)) s[4 * nb + e] = -INFINITY;
    }
}

// S_j (masked) -> P_j in place: the references moved over the quad's maxima where a row's exceeds its own by more
// than headroom, one FFMA + EX2 per element (a row with no visible key yet keeps base 0: p = 0, not NaN). Returns
// O's rescale factors in c_a, c_b.
template <int HD>
__device__ __forceinline__ void softmax_step(float (&s)[BKV / 2], RowState<HD>& st, float scale_log2,
                                             float headroom, float& c_a, float& c_b) {
  // Row a's elements are s[4 nb], s[4 nb + 1], row b's s[4 nb + 2], s[4 nb + 3].
  float mx_a = fmaxf(row_max<BKV / 16>(s, 0), row_max<BKV / 16>(s, 4));
  float mx_b = fmaxf(row_max<BKV / 16>(s, 2), row_max<BKV / 16>(s, 6));
#pragma unroll
  for (int off = 1; off < 4; off <<= 1) {  // a row's keys are spread over the 4 lanes of a quad
    mx_a = fmaxf(mx_a, __shfl_xor_sync(0xffffffffu, mx_a, off));
    mx_b = fmaxf(mx_b, __shfl_xor_sync(0xffffffffu, mx_b, off));
  }
  c_a = move_reference(st.m_a, mx_a, scale_log2, headroom);
  c_b = move_reference(st.m_b, mx_b, scale_log2, headroom);
  const float base_a = st.m_a == -INFINITY ? 0.0f : st.m_a, base_b = st.m_b == -INFINITY ? 0.0f : st.m_b;
  st.l_a *= c_a;
  st.l_b *= c_b;
#pragma unroll
  for (int nb = 0; nb < BKV / 8; ++nb) {
    s[4 * nb] = fast_exp2(fmaf(s[4 * nb], scale_log2, -base_a));
    s[4 * nb + 1] = fast_exp2(fmaf(s[4 * nb + 1], scale_log2, -base_a));
    s[4 * nb + 2] = fast_exp2(fmaf(s[4 * nb + 2], scale_log2, -base_b));
    s[4 * nb + 3] = fast_exp2(fmaf(s[4 * nb + 3], scale_log2, -base_b));
    st.l_a += s[4 * nb] + s[4 * nb + 1];
    st.l_b += s[4 * nb + 2] + s[4 * nb + 3];
  }
}

// O *= c (the references this tile moved), skipped where no row of the warp moved. Only once the previous P V has
// completed. (Under the next S GEMM, FA3's place for it, ptxas inserts a wait for that GEMM first.)
template <int HD>
__device__ __forceinline__ void rescale_output(RowState<HD>& st, float c_a, float c_b) {
  if (!__any_sync(0xffffffffu, c_a != 1.0f || c_b != 1.0f)) return;
#pragma unroll
  for (int nb = 0; nb < HD / 8; ++nb) {
    st.acc[4 * nb] *= c_a;
    st.acc[4 * nb + 1] *= c_a;
    st.acc[4 * nb + 2] *= c_b;
    st.acc[4 * nb + 3] *= c_b;
  }
}

// P_j as bf16 A fragments: keys 16kk .. 16kk+15 are S blocks 2kk (a0 row g, a1 row g+8) and 2kk+1 (a2, a3). Only
// once the previous P V has completed.
__device__ __forceinline__ void pack_probabilities(const float (&s)[BKV / 2], uint32_t (&p)[BKV / 16][4]) {
#pragma unroll
  for (int kk = 0; kk < BKV / 16; ++kk) {
    p[kk][0] = pack_bf16(s[8 * kk], s[8 * kk + 1]);
    p[kk][1] = pack_bf16(s[8 * kk + 2], s[8 * kk + 3]);
    p[kk][2] = pack_bf16(s[8 * kk + 4], s[8 * kk + 5]);
    p[kk][3] = pack_bf16(s[8 * kk + 6], s[8 * kk + 7]);
  }
}

// S_j (masked) -> P_j as bf16 A fragments in pn, speculatively (SPEC): the exps with the rows' current references
// first, and the maxima only where that fails. A thread's partial row sum of at most 2^8 bounds each of its p by
// the lazy rescale's headroom, so the tile stands as computed (the vote's comparisons also catch inf and NaN);
// otherwise, and on a row's first tile (reference -inf), the warp takes softmax_step, with the references moved to
// the maxima (headroom 0), so that the next tiles pass again. Skips the maxima's instructions and their latency
// before the first exp on nearly every tile.
template <int HD>
__device__ __forceinline__ void softmax_speculative(float (&s)[BKV / 2], uint32_t (&pn)[BKV / 16][4],
                                                    RowState<HD>& st, float scale_log2, float& c_a, float& c_b) {
  if (!__any_sync(0xffffffffu, st.m_a == -INFINITY || st.m_b == -INFINITY)) {
    float l_a = 0.0f, l_b = 0.0f;
#pragma unroll
    for (int kk = 0; kk < BKV / 16; ++kk) {
      float e[8];
#pragma unroll
      for (int i = 0; i < 8; ++i) e[i] = fast_exp2(fmaf(s[8 * kk + i], scale_log2, -(i % 4 < 2 ? st.m_a : st.m_b)));
      l_a += (e[0] + e[1]) + (e[4] + e[5]);
      l_b += (e[2] + e[3]) + (e[6] + e[7]);
#pragma unroll
      for (int i = 0; i < 4; ++i) pn[kk][i] = pack_bf16(e[2 * i], e[2 * i + 1]);
    }
    constexpr float bound = float(1 << int(kHeadroomLog2));
    if (!__any_sync(0xffffffffu, !(l_a <= bound && l_b <= bound))) {
      st.l_a += l_a;
      st.l_b += l_b;
      c_a = c_b = 1.0f;
      return;
    }
  }
  softmax_step(s, st, scale_log2, 0.0f, c_a, c_b);
  pack_probabilities(s, pn);
}

template <int HD>
__device__ __forceinline__ void init_rows(RowState<HD>& st, int row_a, int lk, int shift, int causal) {
  st.lim_a = causal ? min(lk - 1, row_a + shift) : lk - 1;
  st.lim_b = causal ? min(lk - 1, row_a + 8 + shift) : lk - 1;
  st.m_a = st.m_b = -INFINITY;
  st.l_a = st.l_b = 0.0f;
#pragma unroll
  for (int i = 0; i < HD / 2; ++i) st.acc[i] = 0.0f;
}

// The warpgroup's O rows, normalized, into its (swizzled) rows of the Q buffer q_tile by stmatrix, then one thread
// stores them by TMA (rows past lq are not written). Direct 4-byte global stores from the accumulator stalled the
// warps on the store queue at every work tile's end. The caller keeps the buffer until bulk_wait_read.
template <int HD>
__device__ __forceinline__ void store_rows(RowState<HD>& st, uint32_t q_tile, const CUtensorMap* o_map, int wq0,
                                           int plane, int wg) {
  const int lane = int(threadIdx.x) % 32, warp = (int(threadIdx.x) % 128) / 32;
#pragma unroll
  for (int off = 1; off < 4; off <<= 1) {
    st.l_a += __shfl_xor_sync(0xffffffffu, st.l_a, off);
    st.l_b += __shfl_xor_sync(0xffffffffu, st.l_b, off);
  }
  const float inv_a = st.l_a > 0.0f ? 1.0f / st.l_a : 0.0f, inv_b = st.l_b > 0.0f ? 1.0f / st.l_b : 0.0f;
  // stmatrix x4 per 16 columns: matrices (rows 0-7, 8-15) x (columns nb, nb + 1 of 8); lane l addresses row l % 8
  // of matrix l / 8. The 128-byte swizzle puts 16-byte chunk c of row r at chunk c ^ (r % 8).
  const int row = warp * 16 + (lane / 8) % 2 * 8 + lane % 8;
#pragma unroll
  for (int nb = 0; nb < HD / 8; nb += 2) {
    const int chunk = nb + lane / 16;  // this lane's matrix's 8 columns, 16 bytes of a 128-byte row
    const uint32_t addr = q_tile + (chunk / 8) * BQ * 128 + row * 128 + (((chunk % 8) ^ (row % 8)) << 4);
    const uint32_t r[4] = {pack_bf16(st.acc[4 * nb] * inv_a, st.acc[4 * nb + 1] * inv_a),
                           pack_bf16(st.acc[4 * nb + 2] * inv_b, st.acc[4 * nb + 3] * inv_b),
                           pack_bf16(st.acc[4 * nb + 4] * inv_a, st.acc[4 * nb + 5] * inv_a),
                           pack_bf16(st.acc[4 * nb + 6] * inv_b, st.acc[4 * nb + 7] * inv_b)};
    stsm_x4(addr, r);
  }
  fence_async_shared();
  // The warpgroup's rows are written (named barrier 6 + wg: 0 is the block's, 3 + wg the pingpong's).
  asm volatile("bar.sync %0, 128;\n" ::"r"(6 + wg) : "memory");
  if (threadIdx.x % 128 == 0) tma_store_rows<64, HD / 64>(o_map, q_tile, BQ * 128, wq0, plane);
}

// The warpgroup index through a shuffle: ptxas then knows it is uniform, and wgmma under branches on it is not
// serialized.
__device__ __forceinline__ int warpgroup() { return __shfl_sync(0xffffffffu, int(threadIdx.x) / 128, 0); }

// The barriers at Bars: full_q[b], full_k[s], full_v[s] (the producer's TMA copies have landed), empty_q[b],
// empty_k[s], empty_v[s] (every consumer thread is done with the buffer; empty_q: each warpgroup's O store has read
// it, one arrival for the warpgroup's 128 threads). The block's j-th K/V tile (counted over all
// its work tiles) uses buffer j % KV_STAGES in its (j / KV_STAGES)-th phase; its k-th work tile's Q, buffer
// k % Q_BUFFERS in its (k / Q_BUFFERS)-th phase.
template <int HD>
struct Barriers {
  static constexpr int KV_STAGES = PrefillSmem<HD>::KV_STAGES;
  uint32_t base;
  __device__ uint32_t full_q(int b) const { return base + 8 * b; }
  __device__ uint32_t full_k(int s) const { return base + 8 * (Q_BUFFERS + s); }
  __device__ uint32_t full_v(int s) const { return base + 8 * (Q_BUFFERS + KV_STAGES + s); }
  __device__ uint32_t empty_k(int s) const { return base + 8 * (Q_BUFFERS + 2 * KV_STAGES + s); }
  __device__ uint32_t empty_v(int s) const { return base + 8 * (Q_BUFFERS + 3 * KV_STAGES + s); }
  __device__ uint32_t empty_q(int b) const { return base + 8 * (Q_BUFFERS + 4 * KV_STAGES + b); }
};

// Consumers of the producer's tiles, pingponging with each other: a warpgroup issues its wgmmas only after the
// previous one has issued its own (named barriers 3 + wg), so one warpgroup's softmax runs under the other's GEMMs.
template <int HD>
struct TileHandover {
  static constexpr int KV_STAGES = PrefillSmem<HD>::KV_STAGES;
  static constexpr uint32_t KV_BYTES = PrefillSmem<HD>::KV_BYTES;
  uint32_t Ks, Vs;
  Barriers<HD> bars;
  int wg;
  __device__ uint32_t k_tile(int j) const { return Ks + (j % KV_STAGES) * KV_BYTES; }
  __device__ uint32_t v_tile(int j) const { return Vs + (j % KV_STAGES) * KV_BYTES; }
  __device__ void wait_k(int j) { mbar_wait(bars.full_k(j % KV_STAGES), (j / KV_STAGES) & 1); }
  __device__ void wait_v(int j) { mbar_wait(bars.full_v(j % KV_STAGES), (j / KV_STAGES) & 1); }
  __device__ void issue_begin() { asm volatile("bar.sync %0, %1;\n" ::"r"(3 + wg), "n"(256) : "memory"); }
  __device__ void issue_end() { asm volatile("bar.arrive %0, %1;\n" ::"r"(3 + (wg + 1) % WGS), "n"(256) : "memory"); }
  __device__ void done_k(int j) { mbar_arrive(bars.empty_k(j % KV_STAGES)); }
  __device__ void done_v(int j) { mbar_arrive(bars.empty_v(j % KV_STAGES)); }
};

// The first of a warpgroup's K/V tiles that needs masks (keys past lk, or causal keys past a row's diagonal);
// every later one needs them too. Tile jt holds keys jt BKV .. jt BKV + BKV - 1, row i sees keys <= i + shift.
__device__ __forceinline__ int first_masked_tile(const PrefillBlock& blk, int wq0, int lk, int causal) {
  const int past_end = lk / BKV;
  return causal ? min(past_end, max(0, wq0 + blk.shift + 1) / BKV) : past_end;
}

// Each warpgroup's loop over a work tile's K/V tiles, FA3's intra-warpgroup pipelining: per tile jt, S_jt and then
// P_jt-1 V_jt-1 are issued together, and the softmax of S_jt runs while the tensor cores still do P_jt-1 V_jt-1.
// Every warpgroup runs every tile (causal: one above the diagonal computes at most one fully masked tile), so that
// no wgmma sits under a branch that differs between warpgroups (ptxas would serialize them). `tiles` hands the
// producer's tiles over (tile jt is the block's it0 + jt-th): wait_k / wait_v until its K / V is in shared memory,
// issue_begin / issue_end around the wgmma issue (pingpong between warpgroups), done_k / done_v once this
// warpgroup's wgmmas no longer read them. after_first_issue runs once the first S is issued (or at once without
// tiles): a point where the warpgroup waits for the tensor cores anyway.
template <int HD, typename AfterFirstIssue>
__device__ __forceinline__ void consume_tiles(TileHandover<HD>& tiles, RowState<HD>& st, const PrefillBlock& blk,
                                              uint32_t q_tile, int it0, int lk, int causal, int wq0, float scale_log2,
                                              AfterFirstIssue&& after_first_issue) {
  const int t = (int(threadIdx.x) % 32) % 4, first_edge = first_masked_tile(blk, wq0, lk, causal);
  uint32_t p[BKV / 16][4];  // P_jt-1 as bf16 A fragments, read by its wgmma until the wait
  if (blk.n_tiles == 0) after_first_issue();
  for (int jt = 0; jt < blk.n_tiles; ++jt) {
    const int j0 = jt * BKV, j = it0 + jt;
    tiles.wait_k(j);
    tiles.issue_begin();
    float s[BKV / 2];
    wgmma_fence();
    issue_qk<HD>(s, q_tile, tiles.k_tile(j));
    wgmma_commit();
    if (jt > 0) {
      tiles.wait_v(j - 1);
      wgmma_fence();
      issue_pv<HD>(st.acc, p, tiles.v_tile(j - 1));
    }
    wgmma_commit();   // (empty for tile 0) the waits below are unconditional: ptxas serializes wgmma otherwise
    tiles.issue_end();
    if (jt == 0) after_first_issue();
    wgmma_wait<1>();  // S_jt has landed; P_jt-1 V_jt-1 may still run
    pin_registers(s);
    tiles.done_k(j);
    if (jt >= first_edge) mask_tile(s, st, j0, t);
    float c_a, c_b;
    uint32_t pn[BKV / 16][4];  // (SPEC) P_jt, while P_jt-1 is still read
    if (SPEC)
      softmax_speculative(s, pn, st, scale_log2, c_a, c_b);
    else
      softmax_step(s, st, scale_log2, kHeadroomLog2, c_a, c_b);
    wgmma_wait<0>();  // O and P belong to the running wgmma until it completes
    pin_registers(st.acc);
    pin_registers(p);
    if (jt > 0) tiles.done_v(j - 1);
    rescale_output(st, c_a, c_b);
    if (SPEC) {
#pragma unroll
      for (int kk = 0; kk < BKV / 16; ++kk)
#pragma unroll
        for (int i = 0; i < 4; ++i) p[kk][i] = pn[kk][i];
    } else {
      pack_probabilities(s, p);
    }
  }
  if (blk.n_tiles > 0) {  // the last P V
    const int j = it0 + blk.n_tiles - 1;
    tiles.wait_v(j);
    wgmma_fence();
    issue_pv<HD>(st.acc, p, tiles.v_tile(j));
    wgmma_commit();
    wgmma_wait<0>();
    pin_registers(st.acc);
    tiles.done_v(j);
  }
}

// The k-th work tile of this block: blockIdx.x, + gridDim.x, ..., or with pairs (persistent grids of at least two
// tiles per block) the pairs 2 blockIdx.x + {0, 1}, 2 (blockIdx.x + gridDim.x) + {0, 1}, ... Singly, the static
// round-robin gave causal tiles unevenly: on B4 L1024 (8 tiles of 1 to 8 K/V tiles per head) block i drew
// tiles i % 8 and (i + 4) % 8 of the heads, 48 K/V tiles for some blocks and 24 for others, and the SMs sat
// idle 23% of the kernel's time (ncu on the H200); folded pairs all see the same number of keys.
__device__ __forceinline__ int block_work(int k, int pairs) {
  return pairs ? 2 * (int(blockIdx.x) + (k >> 1) * int(gridDim.x)) + (k & 1) : int(blockIdx.x) + k * int(gridDim.x);
}

// A block runs the work tiles block_work(0), (1), ...: one per block, or (PERSIST) a grid of one block per SM
// whose producer loads the next work tile's Q and K/V while the consumers finish the current one.
template <int HD>
__global__ void __launch_bounds__(NT, 1) flash_wgmma_prefill(const __grid_constant__ CUtensorMap q_map,
                                                             const __grid_constant__ CUtensorMap k_map,
                                                             const __grid_constant__ CUtensorMap v_map,
                                                             const __grid_constant__ CUtensorMap o_map,
                                                             int hq, int hkv, int lq, int lk, int causal, float scale_log2,
                                                             int q_tiles, int work_tiles, int pairs) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  using Smem = PrefillSmem<HD>;
  constexpr int KV_STAGES = Smem::KV_STAGES;
  constexpr uint32_t KV_BYTES = Smem::KV_BYTES;
  extern __shared__ unsigned char smem_raw[];
  const uint32_t raw = smem_u32(smem_raw), Qs = (raw + 1023) & ~1023u, Ks = Qs + Q_BUFFERS * Smem::Q_BYTES;
  const uint32_t Vs = Ks + KV_STAGES * KV_BYTES, Bars = Vs + KV_STAGES * KV_BYTES;
  const int wg = warpgroup();
  const Barriers<HD> bars{Bars};
  if (threadIdx.x == 0) {
    for (int b = 0; b < Q_BUFFERS; ++b) {
      mbar_init(bars.full_q(b), 1);
      mbar_init(bars.empty_q(b), 128 * WGS);
    }
    for (int s = 0; s < KV_STAGES; ++s) {
      mbar_init(bars.full_k(s), 1);
      mbar_init(bars.full_v(s), 1);
      mbar_init(bars.empty_k(s), 128 * WGS);
      mbar_init(bars.empty_v(s), 128 * WGS);
    }
    fence_mbarrier_init();
  }
  __syncthreads();  // the barriers are initialized (the last block-wide barrier: the roles part here)
  if (wg == WGS) {  // the producer warpgroup: one thread issues every copy
    asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;\n" ::"n"(PRODUCER_REGS));
    if (threadIdx.x != 128 * WGS) return;
    int j = 0;  // the block's K/V tiles so far
    for (int k = 0, work; (work = block_work(k, pairs)) < work_tiles; ++k) {
      const PrefillBlock blk = prefill_block<HD>(hq, hkv, lq, lk, causal, work, q_tiles, pairs);
      const int qb = k % Q_BUFFERS;  // last used by work tile k - Q_BUFFERS, released in the phase before this one's
      if (k >= Q_BUFFERS) mbar_wait(bars.empty_q(qb), (k / Q_BUFFERS - 1) & 1);
      mbar_arrive_expect_bytes(bars.full_q(qb), Smem::Q_BYTES);
      tma_load_rows<BQ, HD / 64>(Qs + qb * Smem::Q_BYTES, &q_map, blk.q0, blk.q_plane, bars.full_q(qb));
      for (int jt = 0; jt < blk.n_tiles; ++jt, ++j) {
        // Buffer s was last used by tile j - KV_STAGES, released in the phase before this tile's.
        const int s = j % KV_STAGES, phase = ((j / KV_STAGES) + 1) & 1;
        if (j >= KV_STAGES) mbar_wait(bars.empty_k(s), phase);
        mbar_arrive_expect_bytes(bars.full_k(s), KV_BYTES);
        tma_load_rows<BKV, HD / 64>(Ks + s * KV_BYTES, &k_map, jt * BKV, blk.kv_plane, bars.full_k(s));
        if (j >= KV_STAGES) mbar_wait(bars.empty_v(s), phase);
        mbar_arrive_expect_bytes(bars.full_v(s), KV_BYTES);
        tma_load_rows<BKV, HD / 64>(Vs + s * KV_BYTES, &v_map, jt * BKV, blk.kv_plane, bars.full_v(s));
      }
    }
    return;
  }
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;\n" ::"n"(CONSUMER_REGS));
  TileHandover<HD> tiles{Ks, Vs, bars, wg};
  if (wg == WGS - 1) asm volatile("bar.arrive %0, %1;\n" ::"n"(3), "n"(256) : "memory");  // warpgroup 0 issues first
  int j = 0;
  // O leaves through the warpgroup's rows of its Q buffer; the buffer goes back to the producer (empty_q) once the
  // TMA store of the warpgroup's thread 0 has read it, checked after the next work tile's first S is issued.
  int stored_q = -1;
  auto release_stored_q = [&] {
    if (stored_q >= 0 && threadIdx.x % 128 == 0) {
      bulk_wait_read();
      mbar_arrive_count(bars.empty_q(stored_q), 128);
    }
    stored_q = -1;
  };
  for (int k = 0, work; (work = block_work(k, pairs)) < work_tiles; ++k) {
    const PrefillBlock blk = prefill_block<HD>(hq, hkv, lq, lk, causal, work, q_tiles, pairs);
    const int wq0 = blk.q0 + wg * 64;
    RowState<HD> st;
    init_rows(st, wq0 + (int(threadIdx.x) % 128) / 32 * 16 + (int(threadIdx.x) % 32) / 4, lk, blk.shift, causal);
    const int qb = k % Q_BUFFERS;
    const uint32_t q_tile = Qs + qb * Smem::Q_BYTES + wg * 64 * 128;
    mbar_wait(bars.full_q(qb), (k / Q_BUFFERS) & 1);
    consume_tiles(tiles, st, blk, q_tile, j, lk, causal, wq0, scale_log2, release_stored_q);
    j += blk.n_tiles;
    store_rows(st, q_tile, &o_map, wq0, blk.q_plane, wg);
    stored_q = qb;
  }
  if (threadIdx.x % 128 == 0) bulk_wait_read();  // the shared memory outlives the last store's reads
#endif
}

#include "decode_split.cuh"
#include "rows_fallback.cuh"

// The prefill at head size HD on device `dev`; false where the driver refuses a tensor map (the caller falls back).
template <int HD>
bool launch_wgmma_prefill(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int32_t causal, float scale_log2, int dev, cudaStream_t stream) {
  CUtensorMap q_map, k_map, v_map, o_map;  // O: each consumer warpgroup stores its 64 rows
  if (!tensor_map_rows(&q_map, q, b * hq, lq, HD, BQ) || !tensor_map_rows(&k_map, k, b * hkv, lk, HD, BKV) ||
      !tensor_map_rows(&v_map, v, b * hkv, lk, HD, BKV) || !tensor_map_rows(&o_map, o, b * hq, lq, HD, 64))
    return false;
  const int q_tiles = int((lq + BQ - 1) / BQ), work_tiles = int(b * hq) * q_tiles;
  int grid = work_tiles;
  if (PERSIST == 1 || (PERSIST == 2 && !causal)) {  // causal tiles differ in work: the hardware's dynamic order balances them
    int sms = 0;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    grid = min(work_tiles, sms);
  }
  const int pairs = work_tiles >= 2 * grid;  // a persistent grid with two or more tiles per block (block_work)
  constexpr size_t smem = PrefillSmem<HD>::TOTAL;
  cudaFuncSetAttribute(flash_wgmma_prefill<HD>, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  flash_wgmma_prefill<HD><<<grid, NT, smem, stream>>>(q_map, k_map, v_map, o_map, int(hq), int(hkv), int(lq), int(lk),
                                                      causal, scale_log2, q_tiles, work_tiles, pairs);
  return true;
}

// The wgmma prefill needs sm_90a (H100, H200) and head size 64 or 128; decode at head size 128 takes
// decode_split.cuh (clusters: sm_90 and later); everything else the rows loop.
extern "C" void attention(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  if (b * hq * lq == 0) return;
  int dev = 0, major = 0, minor = 0;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, dev);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, dev);
  const float scale_log2 = 1.4426950408889634f / sqrtf(float(d));
  // A single query sees every key, causal or not.
  if (lq == 1 && lk > 0 && major >= 9 && d == D && launch_decode_split(q, k, v, o, b, hq, hkv, lk, scale_log2, stream))
    return;
  const bool hopper = lq > 1 && major == 9 && minor == 0;
  if (hopper && d == 128 && launch_wgmma_prefill<128>(q, k, v, o, b, hq, hkv, lq, lk, causal, scale_log2, dev, stream)) return;
  if (hopper && d == 64 && launch_wgmma_prefill<64>(q, k, v, o, b, hq, hkv, lq, lk, causal, scale_log2, dev, stream)) return;
  launch_rows(q, k, v, o, b, hq, hkv, lq, lk, d, causal, stream);
}
