// attention, built-in cpu template family flash_tiled: Flash-style tiles: query block x key block, online softmax, packed K^T and V, GQA heads packed.
// Knobs: ksearch replaces each #define below with the value it tries (flash_tiled.toml lists them).
#define VECTOR_BITS 512
#define BLOCK_Q 32
#define BLOCK_K 64
#define GQA_PACK 1
#define EXP_DEGREE 6
#define THREADS 1

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../common/vector.h"

// Flash-attention tiling: a tile of query rows (BLOCK_Q positions x the query heads sharing one KV
// head when GQA_PACK) walks the keys in blocks of BLOCK_K. Per key block, K is packed transposed and V
// padded so both products are broadcast-FMA over vectors: S = Q K^T vectorized over keys, O += P V
// vectorized over the head dimension; running max/sum per row rescale O only when the max grows.
constexpr int BKV = (BLOCK_K + VW - 1) / VW;  // vectors per score row
constexpr int BK = BKV * VW;

template <int DVC>  // head-dimension vectors kept in registers; 0 = any count, in memory
inline void pv_row(int dvr, float* __restrict orow, float alpha, const float* __restrict p, const float* __restrict vp,
                   int64_t dp, int64_t keys) {
  if constexpr (DVC > 0) {
    vf acc[DVC];
    const vf av = v_set1(alpha);
#pragma GCC unroll 8
    for (int x = 0; x < DVC; ++x) acc[x] = v_mul(v_load(orow + x * VW), av);
    for (int64_t j = 0; j < keys; ++j) {
      const vf pj = v_set1(p[j]);
#pragma GCC unroll 8
      for (int x = 0; x < DVC; ++x) acc[x] = v_fma(pj, v_load(vp + j * dp + x * VW), acc[x]);
    }
#pragma GCC unroll 8
    for (int x = 0; x < DVC; ++x) v_store(orow + x * VW, acc[x]);
  } else {
    const vf av = v_set1(alpha);
    for (int x = 0; x < dvr; ++x) v_store(orow + x * VW, v_mul(v_load(orow + x * VW), av));
    for (int64_t j = 0; j < keys; ++j) {
      const vf pj = v_set1(p[j]);
      for (int x = 0; x < dvr; ++x)
        v_store(orow + x * VW, v_fma(pj, v_load(vp + j * dp + x * VW), v_load(orow + x * VW)));
    }
  }
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq,
                          int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal) {
  const float scale = 1.0f / std::sqrt(float(d));
  const int64_t group = hq / hkv;
  const int64_t heads_per_tile = GQA_PACK ? group : 1;
  const int64_t dp = (d + VW - 1) / VW * VW;  // head dimension padded to whole vectors (pads are zero)
  const int dvr = int(dp / VW);
  const int64_t q_blocks = (lq + BLOCK_Q - 1) / BLOCK_Q;
  const int64_t tiles = b * hkv * (group / heads_per_tile) * q_blocks;
  const int64_t max_rows = heads_per_tile * BLOCK_Q;
#pragma omp parallel if (THREADS)
  {
    std::vector<float> qs(size_t(max_rows * dp)), os(size_t(max_rows * dp)), s(size_t(max_rows * BK));
    std::vector<float> kt(size_t(dp * BK)), vp(size_t(BK * dp)), m(static_cast<size_t>(max_rows)), l(static_cast<size_t>(max_rows));
    std::vector<int64_t> row_end(static_cast<size_t>(max_rows));
#pragma omp for schedule(dynamic, 1)
    for (int64_t tile = 0; tile < tiles; ++tile) {
      const int64_t qb = tile % q_blocks;
      const int64_t hg = (tile / q_blocks) % (group / heads_per_tile);
      const int64_t bk = tile / q_blocks / (group / heads_per_tile);  // batch * hkv + kv head
      const int64_t bi = bk / hkv, kh = bk % hkv;
      const int64_t q0 = qb * BLOCK_Q, nq = std::min<int64_t>(BLOCK_Q, lq - q0);
      const int64_t rows = heads_per_tile * nq;
      const float* K = k + bk * lk * d;
      const float* V = v + bk * lk * d;
      // Row r: head kh * group + hg * heads_per_tile + r / nq, position q0 + r % nq.
      int64_t key_end = 0;
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t h = kh * group + hg * heads_per_tile + r / nq, i = q0 + r % nq;
        const float* src = q + ((bi * hq + h) * lq + i) * d;
        for (int64_t c = 0; c < dp; ++c) qs[size_t(r * dp + c)] = c < d ? src[c] * scale : 0.0f;
        std::fill(os.begin() + r * dp, os.begin() + (r + 1) * dp, 0.0f);
        m[size_t(r)] = -3.0e38f;
        l[size_t(r)] = 0.0f;
        row_end[size_t(r)] = causal ? std::max<int64_t>(0, std::min<int64_t>(lk, i + lk - lq + 1)) : lk;
        key_end = std::max(key_end, row_end[size_t(r)]);
      }
      for (int64_t j0 = 0; j0 < key_end; j0 += BK) {
        const int64_t nk = std::min<int64_t>(BK, key_end - j0);
        for (int64_t j = 0; j < BK; ++j)
          for (int64_t c = 0; c < dp; ++c) {
            const float kv = (j < nk && c < d) ? K[(j0 + j) * d + c] : 0.0f;
            kt[size_t(c * BK + j)] = kv;
            vp[size_t(j * dp + c)] = (j < nk && c < d) ? V[(j0 + j) * d + c] : 0.0f;
          }
        for (int64_t r = 0; r < rows; ++r) {
          const int64_t valid = std::min<int64_t>(nk, row_end[size_t(r)] - j0);
          if (valid <= 0) continue;
          float* sr = s.data() + r * BK;
          const float* qr = qs.data() + r * dp;
          vf acc[BKV];
#pragma GCC unroll 8
          for (int x = 0; x < BKV; ++x) acc[x] = v_set1(0.0f);
          for (int64_t c = 0; c < dp; ++c) {
            const vf qc = v_set1(qr[c]);
#pragma GCC unroll 8
            for (int x = 0; x < BKV; ++x) acc[x] = v_fma(qc, v_load(kt.data() + c * BK + x * VW), acc[x]);
          }
#pragma GCC unroll 8
          for (int x = 0; x < BKV; ++x) v_store(sr + x * VW, acc[x]);
          float bm = -3.0e38f;
          for (int64_t j = 0; j < valid; ++j) bm = std::max(bm, sr[j]);
          const float mnew = std::max(m[size_t(r)], bm);
          const float alpha = s_exp<EXP_DEGREE>(m[size_t(r)] - mnew);
          const vf mv = v_set1(mnew);
          for (int x = 0; x < BKV; ++x) v_store(sr + x * VW, v_exp<EXP_DEGREE>(v_sub(v_load(sr + x * VW), mv)));
          float psum = 0.0f;
          for (int64_t j = 0; j < valid; ++j) psum += sr[j];
          l[size_t(r)] = l[size_t(r)] * alpha + psum;
          m[size_t(r)] = mnew;
          float* orow = os.data() + r * dp;
          switch (dvr) {
            case 1: pv_row<1>(dvr, orow, alpha, sr, vp.data(), dp, valid); break;
            case 2: pv_row<2>(dvr, orow, alpha, sr, vp.data(), dp, valid); break;
            case 3: pv_row<3>(dvr, orow, alpha, sr, vp.data(), dp, valid); break;
            case 4: pv_row<4>(dvr, orow, alpha, sr, vp.data(), dp, valid); break;
            case 5: pv_row<5>(dvr, orow, alpha, sr, vp.data(), dp, valid); break;
            case 6: pv_row<6>(dvr, orow, alpha, sr, vp.data(), dp, valid); break;
            case 8: pv_row<8>(dvr, orow, alpha, sr, vp.data(), dp, valid); break;
            default: pv_row<0>(dvr, orow, alpha, sr, vp.data(), dp, valid); break;
          }
        }
      }
      for (int64_t r = 0; r < rows; ++r) {
        const int64_t h = kh * group + hg * heads_per_tile + r / nq, i = q0 + r % nq;
        float* dst = o + ((bi * hq + h) * lq + i) * d;
        const float inv = l[size_t(r)] > 0.0f ? 1.0f / l[size_t(r)] : 0.0f;
        for (int64_t c = 0; c < d; ++c) dst[c] = os[size_t(r * dp + c)] * inv;
      }
    }
  }
}
