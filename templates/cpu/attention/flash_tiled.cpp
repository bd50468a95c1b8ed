// attention, built-in cpu template family flash_tiled: Flash-style tiles: query block x key block, online softmax, register-blocked QK^T and PV on K^T packed once per head, causal work trimmed to the triangle.
// Knobs: ksearch replaces each #define below with the value it tries (flash_tiled.toml lists them).
#define VECTOR_BITS 512
#define BLOCK_Q 48
#define KEY_VECTORS 4
#define ROW_BLOCK 0
#define GQA_PACK 1
#define EXP_DEGREE 5
#define PACK_ALL_HEADS 2
#define PREFETCH_NEXT_HEAD 8
#define THREADS 1

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <vector>

#include "../common/vector.h"

#include <omp.h>

// Flash-attention tiling: a tile of query rows (BLOCK_Q positions x the query heads sharing one KV head
// when GQA_PACK) walks the keys in blocks of BK. K is packed transposed once per KV head (V padded only when
// d is not whole vectors), so both products are register-blocked broadcast-FMA micro-kernels over RB query rows: S = Q K^T with an
// RB x KEY_VECTORS tile of scores, O = O * alpha + P V with an RB x 4 tile of the head dimension. The
// softmax keeps a running reference (a max, moved only by a clearly larger score) and sum per row, vectorized
// across the block's keys.
constexpr int BKV = KEY_VECTORS;
constexpr int64_t BK = int64_t(BKV) * VW;
constexpr int kOutVectors = 4;                     // head-dimension vectors per PV register tile
constexpr int kAccumulators = VW >= 16 ? 24 : 10;  // vector registers left for accumulators (32 or 16 in all)
constexpr int RB = ROW_BLOCK > 0 ? ROW_BLOCK : std::max(1, kAccumulators / std::max(BKV, kOutVectors));
constexpr float kMasked = -3.0e38f;
constexpr float kHeadroom = 8.0f;  // exp2 units a score may exceed its row's reference by

// The softmax takes exp(x / sqrt(d)) as 2^(x log2); headroom is kHeadroom in score units. Computed once per call.
struct SoftmaxScale {
  float log2, headroom;
};

// A range of memory pulled toward the caches a few lines at a time, interleaved with computation.
struct PrefetchStream {
  const char* at = nullptr;
  const char* end = nullptr;
  void slice(const float* begin, int64_t floats, int64_t part, int64_t parts) {
    const int64_t bytes = floats * int64_t(sizeof(float));
    at = reinterpret_cast<const char*>(begin) + bytes * part / parts;
    end = reinterpret_cast<const char*>(begin) + bytes * (part + 1) / parts;
  }
  void step(int lines) {
    for (; lines > 0 && at < end; --lines, at += 64) __builtin_prefetch(at);
  }
};

// The register tile of both products: out[r][0, W vectors) = init + sum over j < depth of a[r * lda + j] *
// b[j * ldb][0, W vectors) for RR rows, where init is 0, or out[r] * alpha[r] when alpha is given.
template <int RR, int W>
inline void tile_fma(const float* __restrict a, int64_t lda, const float* __restrict b, int64_t ldb, int64_t depth,
                     float* __restrict out, int64_t ldo, const float* __restrict alpha) {
  vf acc[RR][W];
#pragma GCC unroll 8
  for (int r = 0; r < RR; ++r)
#pragma GCC unroll 8
    for (int x = 0; x < W; ++x) acc[r][x] = alpha ? v_mul(v_load(out + r * ldo + x * VW), v_set1(alpha[r])) : v_set1(0.0f);
  for (int64_t j = 0; j < depth; ++j) {
    vf bv[W];
#pragma GCC unroll 8
    for (int x = 0; x < W; ++x) bv[x] = v_load(b + j * ldb + x * VW);
#pragma GCC unroll 8
    for (int r = 0; r < RR; ++r) {
      const vf av = v_set1(a[r * lda + j]);
#pragma GCC unroll 8
      for (int x = 0; x < W; ++x) acc[r][x] = v_fma(av, bv[x], acc[r][x]);
    }
  }
#pragma GCC unroll 8
  for (int r = 0; r < RR; ++r)
#pragma GCC unroll 8
    for (int x = 0; x < W; ++x) v_store(out + r * ldo + x * VW, acc[r][x]);
}

// o[RB rows] = o * alpha + p v over `keys` keys, the head dimension in chunks of kOutVectors (the last narrower).
inline void pv_rows(float* o, int64_t dp, const float* alpha, const float* p, const float* v, int64_t keys) {
  const int dvr = int(dp / VW);
  for (int x0 = 0; x0 < dvr; x0 += kOutVectors) {
    const int64_t off = int64_t(x0) * VW;
    switch (std::min(kOutVectors, dvr - x0)) {
      case 1: tile_fma<RB, 1>(p, BK, v + off, dp, keys, o + off, dp, alpha); break;
      case 2: tile_fma<RB, 2>(p, BK, v + off, dp, keys, o + off, dp, alpha); break;
      case 3: tile_fma<RB, 3>(p, BK, v + off, dp, keys, o + off, dp, alpha); break;
      default: tile_fma<RB, kOutVectors>(p, BK, v + off, dp, keys, o + off, dp, alpha); break;
    }
  }
}

// Scores of one row -> probabilities over the first W key vectors of the block: keys from `valid` on are
// masked (only in a causal diagonal block); returns the row's alpha (the rescale of what it accumulated so
// far) and updates its reference m and its lane-wise running sum l[0, VW) (summed across lanes at the end).
template <int W>
inline float softmax_block(float* __restrict s, int64_t valid, float& m, float* __restrict l, SoftmaxScale scale) {
  constexpr int64_t width = int64_t(W) * VW;
  if (valid <= 0) {
    for (int64_t j = 0; j < width; ++j) s[j] = 0.0f;
    return 1.0f;
  }
  // Keys from `valid` on count as kMasked in the max and as 0 in the probabilities and their sum.
  const bool masked = valid < width;
  const auto lanes = [valid](int x) { return int(std::clamp<int64_t>(valid - int64_t(x) * VW, 0, VW)); };
  vf sv[W];
#pragma GCC unroll 8
  for (int x = 0; x < W; ++x) sv[x] = masked ? v_first_lanes(v_load(s + x * VW), lanes(x), kMasked) : v_load(s + x * VW);
  vf mx = sv[0];
#pragma GCC unroll 8
  for (int x = 1; x < W; ++x) mx = v_max(mx, sv[x]);
  // m is the row's reference, not always its maximum: it moves (and what the row accumulated is rescaled)
  // only when a score exceeds it by more than kHeadroom in exp2 units, so the probabilities stay below
  // 2^kHeadroom and most blocks skip the horizontal max and the rescale.
  float alpha = 1.0f;
  if (v_any_greater(mx, v_set1(m + scale.headroom))) {
    const float mnew = std::max(m, v_hmax(mx));
    alpha = s_exp2_product<EXP_DEGREE>(m - mnew, scale.log2);
    m = mnew;
  }
  const vf mv = v_set1(m), log2 = v_set1(scale.log2);
  vf sum = v_set1(0.0f);
#pragma GCC unroll 8
  for (int x = 0; x < W; ++x) {
    vf e = v_exp2_product<EXP_DEGREE>(v_sub(sv[x], mv), log2);
    if (masked) e = v_first_lanes(e, lanes(x), 0.0f);  // a masked key's exp underflows, not quite to 0
    v_store(s + x * VW, e);
    sum = v_add(sum, e);
  }
  v_store(l, v_fma(v_load(l), v_set1(alpha), sum));
  return alpha;
}

// One register group of RB rows against the first `keys` keys of a block, in w = ceil(keys / VW) key vectors
// (w <= W): S = Q K^T, the online softmax of each row (its own keys end at row_end - j0), O = O * alpha + P V.
template <int W = BKV>
inline void attend_group(int w, int64_t keys, const float* q, float* o, int64_t dp, const float* kt, const float* v,
                         float* s, const int64_t* row_end, int64_t j0, float* m, float* l, float* alpha, SoftmaxScale scale) {
  if constexpr (W > 1)
    if (w < W) return attend_group<W - 1>(w, keys, q, o, dp, kt, v, s, row_end, j0, m, l, alpha, scale);
  tile_fma<RB, W>(q, dp, kt, BK, dp, s, BK, nullptr);
  for (int r = 0; r < RB; ++r) alpha[r] = softmax_block<W>(s + r * BK, std::min<int64_t>(keys, row_end[r] - j0), m[r], l + r * VW, scale);
  pv_rows(o, dp, alpha, s, v, keys);
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq,
                          int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal) {
  // Scores stay unscaled: the softmax takes exp(x / sqrt(d)) as 2^(x (log2 e / sqrt(d))), the product folded
  // into the exp's rounding.
  const float log2_scale = kLog2e / std::sqrt(float(d));
  const SoftmaxScale scale{log2_scale, kHeadroom / log2_scale};
  const int64_t group = hq / hkv;
  const int64_t heads_per_tile = GQA_PACK ? group : 1;
  const int64_t dp = (d + VW - 1) / VW * VW;  // head dimension padded to whole vectors (pads are zero)
  const int64_t q_blocks = (lq + BLOCK_Q - 1) / BLOCK_Q;
  const int64_t k_blocks = (lk + BK - 1) / BK;
  const int64_t tiles_per_head = group / heads_per_tile * q_blocks;
  const int64_t max_rows = (heads_per_tile * BLOCK_Q + RB - 1) / RB * RB;
  // When several tiles read a KV head, its blocks are packed once, by all threads, before its tiles run;
  // else (decode) each tile packs the block it is about to use into a small buffer that stays in cache.
  const bool pack_shared = tiles_per_head > 1;
  // Key block j0 of KV head bk: K^T as [dp][BK], zero-padded, and V as [BK][dp] when d is not a whole number
  // of vectors or for decode (else V's own rows serve: blocks never read past their last valid key).
  const bool v_padded = dp != d || !pack_shared;
  const int64_t block_floats = BK * dp;
  const auto pack_block = [&](int64_t bk, int64_t j0, float* __restrict kt, float* __restrict vp) {
    const int64_t nk = std::min<int64_t>(BK, lk - j0);
    const float* K = k + (bk * lk + j0) * d;
    const float* V = v + (bk * lk + j0) * d;
    if (v_padded) {  // K and V in one pass, two streams from memory (decode's per-tile packing is bound by it)
      for (int64_t j = 0; j < BK; ++j)
        for (int64_t c = 0; c < dp; ++c) {
          const bool inside = j < nk && c < d;
          kt[c * BK + j] = inside ? K[j * d + c] : 0.0f;
          vp[j * dp + c] = inside ? V[j * d + c] : 0.0f;
        }
      return;
    }
    for (int64_t c = d; c < dp; ++c) std::fill(kt + c * BK, kt + (c + 1) * BK, 0.0f);
    // Whole vectors of keys: VW x VW tiles of K transposed in registers, the columns past the last whole tile
    // by gathers; the keys past the last whole vector scalar.
    const int64_t whole = nk / VW * VW;
    const vi rows = v_offsets(d, VW);
    for (int64_t j = 0; j < whole; j += VW) {
      int64_t c = 0;
      for (; c + VW <= d; c += VW) v_transpose_tile(K + j * d + c, d, kt + c * BK + j, BK);
      for (; c < d; ++c) v_store(kt + c * BK + j, v_gather(K + j * d + c, rows));
    }
    for (int64_t j = whole; j < nk; ++j)
      for (int64_t c = 0; c < d; ++c) kt[c * BK + j] = K[j * d + c];
    if (nk < BK)
      for (int64_t c = 0; c < d; ++c) std::fill(kt + c * BK + nk, kt + (c + 1) * BK, 0.0f);
  };
  const auto v_block = [&](int64_t bk, int64_t j0, const float* packed) { return v_padded ? packed : v + (bk * lk + j0) * d; };
  // One KV head at a time keeps its packed K^T in cache and lets the next head's k arrive during this one's
  // tiles, but runs only one head's tiles at once: with more threads than that, every head is packed first.
  const int threads = THREADS ? omp_get_max_threads() : 1;
  const bool pack_all_heads = PACK_ALL_HEADS == 1 || (PACK_ALL_HEADS == 2 && tiles_per_head < threads);
  const int64_t packed_heads = !pack_shared ? 0 : pack_all_heads ? b * hkv : 1;
  const size_t packed_floats = size_t(packed_heads * k_blocks * block_floats);
  const std::unique_ptr<float[]> kt_packed(new float[packed_floats]), v_packed(new float[v_padded ? packed_floats : 0]);
#pragma omp parallel if (THREADS)
  {
    std::vector<float> kt_tile(size_t(pack_shared ? 0 : block_floats)), v_tile(v_padded ? kt_tile.size() : 0);
    std::vector<float> qs(size_t(max_rows * dp)), os(size_t(max_rows * dp)), s(size_t(max_rows * BK));
    std::vector<float> m(static_cast<size_t>(max_rows)), alpha(static_cast<size_t>(max_rows)), l(size_t(max_rows * VW));
    std::vector<int64_t> row_end(static_cast<size_t>(max_rows)), group_end(static_cast<size_t>(max_rows / RB));
    PrefetchStream next_head[4];
    // Tile t of KV head bk (batch * hkv + head); its packed blocks (when shared) start at kt_head, v_head.
    const auto run_tile = [&](int64_t bk, int64_t t, const float* kt_head, const float* v_head) {
      const int64_t qb = q_blocks - 1 - t % q_blocks;  // the last query blocks first: with causal they see the most keys
      const int64_t hg = t / q_blocks;
      const int64_t bi = bk / hkv, kh = bk % hkv;
      const int64_t q0 = qb * BLOCK_Q, nq = std::min<int64_t>(BLOCK_Q, lq - q0);
      const int64_t rows = heads_per_tile * nq;
      const int64_t padded_rows = (rows + RB - 1) / RB * RB;  // rows past `rows` are zero and never stored
      // The next KV head's q, o, v (and k when heads are packed one at a time) come from memory while this
      // head's tiles compute: each tile pulls its share toward the caches, a few lines per register group.
      for (auto& stream : next_head) stream = {};
      if (PREFETCH_NEXT_HEAD && bk + 1 < b * hkv) {
        const int64_t next_q = ((bk + 1) / hkv * hq + (bk + 1) % hkv * group) * lq * d;
        next_head[0].slice(q + next_q, group * lq * d, t, tiles_per_head);
        next_head[1].slice(o + next_q, group * lq * d, t, tiles_per_head);
        next_head[2].slice(v + (bk + 1) * lk * d, lk * d, t, tiles_per_head);
        if (!pack_all_heads) next_head[3].slice(k + (bk + 1) * lk * d, lk * d, t, tiles_per_head);
      }
      // Row r: head kh * group + hg * heads_per_tile + r / nq, position q0 + r % nq. A register group of RB
      // rows needs the keys up to the end of its longest row's.
      int64_t key_end = 0;
      for (int64_t r = 0; r < padded_rows; ++r) {
        float* qr = qs.data() + r * dp;
        std::fill(qr, qr + dp, 0.0f);
        std::fill(os.begin() + r * dp, os.begin() + (r + 1) * dp, 0.0f);
        m[size_t(r)] = kMasked;
        std::fill(l.begin() + r * VW, l.begin() + (r + 1) * VW, 0.0f);
        row_end[size_t(r)] = 0;
        if (r % RB == 0) group_end[size_t(r / RB)] = 0;
        if (r >= rows) continue;
        const int64_t h = kh * group + hg * heads_per_tile + r / nq, i = q0 + r % nq;
        const float* src = q + ((bi * hq + h) * lq + i) * d;
        std::copy(src, src + d, qr);
        row_end[size_t(r)] = causal ? std::max<int64_t>(0, std::min<int64_t>(lk, i + lk - lq + 1)) : lk;
        group_end[size_t(r / RB)] = std::max(group_end[size_t(r / RB)], row_end[size_t(r)]);
        key_end = std::max(key_end, row_end[size_t(r)]);
      }
      for (int64_t j0 = 0; j0 < key_end; j0 += BK) {
        if (!pack_shared) pack_block(bk, j0, kt_tile.data(), v_tile.data());
        const float* kt = pack_shared ? kt_head + j0 / BK * block_floats : kt_tile.data();
        const float* vp = v_block(bk, j0, pack_shared ? v_head + (v_padded ? j0 / BK * block_floats : 0) : v_tile.data());
        // Per register group, only the key vectors up to its last visible key: a causal diagonal block
        // costs about its triangle, and the unmasked blocks take the same path with no masked keys.
        for (int64_t r = 0; r < padded_rows; r += RB) {
          const int64_t keys = std::min<int64_t>(BK, group_end[size_t(r / RB)] - j0);
          if (keys <= 0) continue;  // every row of the group is masked here: nothing to add
          for (auto& stream : next_head) stream.step(PREFETCH_NEXT_HEAD);
          attend_group(int((keys + VW - 1) / VW), keys, qs.data() + r * dp, os.data() + r * dp, dp, kt, vp, s.data() + r * BK,
                       row_end.data() + r, j0, m.data() + r, l.data() + r * VW, alpha.data() + r, scale);
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t h = kh * group + hg * heads_per_tile + r / nq, i = q0 + r % nq;
        float* dst = o + ((bi * hq + h) * lq + i) * d;
        const float total = v_hsum(v_load(l.data() + r * VW));
        const float inv = total > 0.0f ? 1.0f / total : 0.0f;
        const float* src = os.data() + r * dp;
        int64_t c = 0;
        for (; c + VW <= d; c += VW) v_store(dst + c, v_mul(v_load(src + c), v_set1(inv)));
        for (; c < d; ++c) dst[c] = src[c] * inv;
      }
    };
    if (!pack_shared) {
#pragma omp for schedule(dynamic, 1)
      for (int64_t tile = 0; tile < b * hkv * tiles_per_head; ++tile) run_tile(tile / tiles_per_head, tile % tiles_per_head, nullptr, nullptr);
    } else if (pack_all_heads) {
#pragma omp for schedule(static)
      for (int64_t hb = 0; hb < b * hkv * k_blocks; ++hb)
        pack_block(hb / k_blocks, hb % k_blocks * BK, kt_packed.get() + hb * block_floats,
                   v_padded ? v_packed.get() + hb * block_floats : nullptr);
#pragma omp for schedule(dynamic, 1)
      for (int64_t tile = 0; tile < b * hkv * tiles_per_head; ++tile) {
        const int64_t bk = tile / tiles_per_head;
        run_tile(bk, tile % tiles_per_head, kt_packed.get() + bk * k_blocks * block_floats,
                 v_packed.get() + (v_padded ? bk * k_blocks * block_floats : 0));
      }
    } else {
      // One KV head at a time: the packed scratch is one head's (fresh pages cost a page fault each, on
      // every call), at two barriers per head.
      for (int64_t bk = 0; bk < b * hkv; ++bk) {
#pragma omp for schedule(static)
        for (int64_t kb = 0; kb < k_blocks; ++kb)
          pack_block(bk, kb * BK, kt_packed.get() + kb * block_floats, v_packed.get() + (v_padded ? kb * block_floats : 0));
#pragma omp for schedule(dynamic, 1)
        for (int64_t t = 0; t < tiles_per_head; ++t) run_tile(bk, t, kt_packed.get(), v_packed.get());
      }
    }
  }
}
