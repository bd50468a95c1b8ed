// Flash attention for the metal attention families (fp32 and, through T = bfloat16_t, bf16: every element is
// converted to float on load and the output rounded once). One threadgroup per block of queries of one
// (batch, head); the block walks the keys in tiles staged in threadgroup memory (as float) with an online
// softmax, so no score matrix is ever stored. Query head h reads key/value head h / (hq / hkv); with causal,
// query i sees keys j <= i + lk - lq, and a block stops at the last key its last query sees. The inputs q, k, v
// are `device` pointers or, under 8 elements, `constant` ones (their types QPtr, KPtr, VPtr).
#pragma once

// Threadgroup memory per K or V tile, in floats (12 KiB): both tiles with the score buffers stay within
// Apple's 32 KiB.
constexpr int flash_tile_floats() { return 3072; }

// One past the last key the queries [first, last] of a (batch, head) see.
inline int flash_key_end(int last, int lq, int lk, bool causal) {
  return causal ? min(lk, last + lk - lq + 1) : lk;
}

// Keys [j0, j0 + BK) of this (batch, kv head) into Ks and Vs (row stride DS, DCOLS columns), zeros past lk
// and past column D. Every thread of the threadgroup calls it between two barriers.
template <int D, int DS, int DCOLS, int BK, typename KPtr, typename VPtr>
inline void flash_stage_kv(KPtr k, VPtr v, threadgroup float* Ks, threadgroup float* Vs,
                           size_t kv_row0, int j0, int lk, uint tid, uint threads) {
  for (int idx = int(tid); idx < BK * DCOLS; idx += int(threads)) {
    const int j = idx / DCOLS, c = idx % DCOLS;
    const bool in = j0 + j < lk && c < D;
    const size_t at = (kv_row0 + j0 + j) * D + c;
    Ks[j * DS + c] = in ? float(k[at]) : 0.0f;
    Vs[j * DS + c] = in ? float(v[at]) : 0.0f;
  }
}

// ---- flash_lanes: SIMT. A SIMD group owns QR query rows; for each tile its lanes take the keys (lane j:
// keys j, j + 32, ...) for the scores, then the head dimension (lane c: columns c, c + 32, ...) for P.V.
// The probabilities pass between the two through threadgroup memory (P, BK floats per SIMD group).

// Keys per tile: at most KB, and both tiles (row stride DS) within flash_tile_floats() each.
constexpr int flash_lanes_keys(int KB, int DS) { return KB < flash_tile_floats() / DS ? KB : flash_tile_floats() / DS; }

template <int D, int DS, int BK, int QR, int SG, typename QPtr, typename KPtr, typename VPtr, typename T>
inline void flash_lanes(QPtr q, KPtr k, VPtr v, device T* o, int hq, int hkv,
                        int lq, int lk, bool causal, threadgroup float* Ks, threadgroup float* Vs,
                        threadgroup float* P, uint3 block, uint tid, uint sg, uint lane) {
  constexpr int DL = (D + 31) / 32, KT = (BK + 31) / 32;
  const int h = int(block.y), bi = int(block.z);
  const size_t q_row0 = (size_t(bi) * hq + h) * lq, kv_row0 = (size_t(bi) * hkv + h / (hq / hkv)) * lk;
  const int q0 = int(block.x) * SG * QR, mine = q0 + int(sg) * QR;
  const int kv_end = flash_key_end(min(q0 + SG * QR, lq) - 1, lq, lk, causal);
  const float scale = 1.0f / sqrt(float(D));
  threadgroup float* p_row = P + sg * BK;

  float m[QR], l[QR], acc[QR][DL];
  for (int r = 0; r < QR; ++r) {
    m[r] = -INFINITY;
    l[r] = 0.0f;
    for (int u = 0; u < DL; ++u) acc[r][u] = 0.0f;
  }
  for (int j0 = 0; j0 < kv_end; j0 += BK) {
    threadgroup_barrier(mem_flags::mem_threadgroup);  // the previous tile's readers are done
    flash_stage_kv<D, DS, D, BK>(k, v, Ks, Vs, kv_row0, j0, lk, tid, 32 * SG);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    for (int r = 0; r < QR; ++r) {
      const int i = mine + r;
      if (i >= lq) break;
      const int end = flash_key_end(i, lq, lk, causal);
      if (j0 >= end) continue;  // causal: this row sees no key of the tile (a later row may)
      auto q_row = q + (q_row0 + i) * D;
      float s[KT];
      float tile_max = -INFINITY;
      for (int t = 0; t < KT; ++t) {
        const int j = int(lane) + 32 * t;
        s[t] = -INFINITY;
        if (j < BK && j0 + j < end) {
          float dot = 0.0f;
          for (int c = 0; c < D; ++c) dot = fma(float(q_row[c]), Ks[j * DS + c], dot);
          s[t] = dot * scale;
        }
        tile_max = max(tile_max, s[t]);
      }
      const float m_new = max(m[r], simd_max(tile_max));  // finite: key j0 is visible
      const float correction = exp(m[r] - m_new);
      float p_sum = 0.0f;
      for (int t = 0; t < KT; ++t) {
        const int j = int(lane) + 32 * t;
        const float p = exp(s[t] - m_new);
        p_sum += p;
        if (j < BK) p_row[j] = p;
      }
      l[r] = l[r] * correction + simd_sum(p_sum);
      m[r] = m_new;
      simdgroup_barrier(mem_flags::mem_threadgroup);
      const int keys = min(BK, end - j0);
      for (int u = 0; u < DL; ++u) {
        const int c = int(lane) + 32 * u;
        if (c >= D) break;
        float a = acc[r][u] * correction;
        for (int j = 0; j < keys; ++j) a = fma(p_row[j], Vs[j * DS + c], a);
        acc[r][u] = a;
      }
      simdgroup_barrier(mem_flags::mem_threadgroup);  // the next row rewrites p_row
    }
  }
  for (int r = 0; r < QR; ++r) {
    const int i = mine + r;
    if (i >= lq) break;
    for (int u = 0; u < DL; ++u) {
      const int c = int(lane) + 32 * u;
      if (c < D) o[(q_row0 + i) * D + c] = T(acc[r][u] / l[r]);
    }
  }
}

// ---- flash_simdgroup: simdgroup_matrix. A SIMD group owns 8 query rows, kept as DP / 8 8x8 blocks of
// Q (scaled) and of the output; S = Q K^T for a tile comes from 8x8 multiply-accumulates against K blocks
// loaded transposed, goes to threadgroup memory (S, 8 x BK per SIMD group) for the row-wise online softmax
// (four lanes per row), and O = diag(correction) O + P V, the rescale being a multiply by a diagonal 8x8
// matrix. `stage` (64 floats per SIMD group) carries Q in, the diagonal, and the output out.

// Keys per tile: at most KB, a multiple of 8, both tiles (row stride DP) within flash_tile_floats() each.
constexpr int flash_simdgroup_keys(int KB, int DP) {
  return KB < flash_tile_floats() / DP / 8 * 8 ? KB : flash_tile_floats() / DP / 8 * 8;
}

template <int D, int DP, int BK, int SG, typename QPtr, typename KPtr, typename VPtr, typename T>
inline void flash_simdgroup(QPtr q, KPtr k, VPtr v, device T* o, int hq, int hkv,
                            int lq, int lk, bool causal, threadgroup float* Ks, threadgroup float* Vs,
                            threadgroup float* S, threadgroup float* stage, uint3 block, uint tid, uint sg,
                            uint lane) {
  static_assert(BK >= 8 && BK % 8 == 0, "the head dimension leaves no room for an 8-key tile");
  constexpr int DB = DP / 8;
  const int h = int(block.y), bi = int(block.z);
  const size_t q_row0 = (size_t(bi) * hq + h) * lq, kv_row0 = (size_t(bi) * hkv + h / (hq / hkv)) * lk;
  const int q0 = int(block.x) * SG * 8, mine = q0 + int(sg) * 8;
  const int kv_end = flash_key_end(min(q0 + SG * 8, lq) - 1, lq, lk, causal);
  const int my_kv_end = mine < lq ? flash_key_end(min(mine + 8, lq) - 1, lq, lk, causal) : 0;
  const float scale = 1.0f / sqrt(float(D));
  threadgroup float* st = stage + sg * 64;
  threadgroup float* s_rows = S + sg * 8 * BK;
  // Lane l holds elements 2l and 2l + 1 of an 8x8 block when moving it element-wise: both in row l / 4,
  // the row whose softmax state the lane keeps (four lanes per row, columns part, part + 4, ...).
  const int row = int(lane) / 4, part = int(lane) % 4;
  const int end = flash_key_end(mine + row, lq, lk, causal);  // rows past lq: all keys (never stored)

  simdgroup_float8x8 Q[DB], O[DB];
  for (int db = 0; db < DB; ++db) {
    for (int e = 2 * int(lane); e < 2 * int(lane) + 2; ++e) {
      const int i = mine + e / 8, c = db * 8 + e % 8;
      st[e] = i < lq && c < D ? float(q[(q_row0 + i) * D + c]) * scale : 0.0f;
    }
    simdgroup_barrier(mem_flags::mem_threadgroup);
    simdgroup_load(Q[db], st, 8);
    simdgroup_barrier(mem_flags::mem_threadgroup);
    O[db] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);
  }
  st[2 * lane] = 0.0f;  // the diagonal rescale matrix: zero off the diagonal from here on
  st[2 * lane + 1] = 0.0f;
  simdgroup_barrier(mem_flags::mem_threadgroup);

  float m = -INFINITY, l = 0.0f;
  for (int j0 = 0; j0 < kv_end; j0 += BK) {
    threadgroup_barrier(mem_flags::mem_threadgroup);
    flash_stage_kv<D, DP, DP, BK>(k, v, Ks, Vs, kv_row0, j0, lk, tid, 32 * SG);
    threadgroup_barrier(mem_flags::mem_threadgroup);
    if (j0 >= my_kv_end) continue;  // causal: the SIMD group's rows see no key of this tile
    for (int kb = 0; kb < BK / 8; ++kb) {
      simdgroup_float8x8 s = make_filled_simdgroup_matrix<float, 8, 8>(0.0f), kt;
      for (int db = 0; db < DB; ++db) {
        simdgroup_load(kt, Ks + kb * 8 * DP + db * 8, DP, ulong2(0, 0), true);
        simdgroup_multiply_accumulate(s, Q[db], kt, s);
      }
      simdgroup_store(s, s_rows + kb * 8, BK);
    }
    simdgroup_barrier(mem_flags::mem_threadgroup);

    float tile_max = -INFINITY;
    for (int c = part; c < BK; c += 4)
      if (j0 + c < end) tile_max = max(tile_max, s_rows[row * BK + c]);
    tile_max = max(tile_max, simd_shuffle_xor(tile_max, 1));
    tile_max = max(tile_max, simd_shuffle_xor(tile_max, 2));
    const float m_new = max(m, tile_max);
    const float m_ref = m_new == -INFINITY ? 0.0f : m_new;  // a row that has seen no key yet
    const float correction = exp(m - m_ref);
    float p_sum = 0.0f;
    for (int c = part; c < BK; c += 4) {
      const float p = j0 + c < end ? exp(s_rows[row * BK + c] - m_ref) : 0.0f;
      s_rows[row * BK + c] = p;
      p_sum += p;
    }
    p_sum += simd_shuffle_xor(p_sum, 1);
    p_sum += simd_shuffle_xor(p_sum, 2);
    l = l * correction + p_sum;
    m = m_new;
    if (part == 0) st[row * 9] = correction;
    simdgroup_barrier(mem_flags::mem_threadgroup);

    simdgroup_float8x8 diag, p, vb;
    simdgroup_load(diag, st, 8);
    for (int db = 0; db < DB; ++db) simdgroup_multiply(O[db], diag, O[db]);
    for (int kb = 0; kb < BK / 8; ++kb) {
      simdgroup_load(p, s_rows + kb * 8, BK);
      for (int db = 0; db < DB; ++db) {
        simdgroup_load(vb, Vs + kb * 8 * DP + db * 8, DP);
        simdgroup_multiply_accumulate(O[db], p, vb, O[db]);
      }
    }
    simdgroup_barrier(mem_flags::mem_threadgroup);  // s_rows and the diagonal are rewritten next tile
  }

  for (int db = 0; db < DB; ++db) {
    simdgroup_store(O[db], st, 8);
    simdgroup_barrier(mem_flags::mem_threadgroup);
    for (int e = 2 * int(lane); e < 2 * int(lane) + 2; ++e) {
      const int i = mine + e / 8, c = db * 8 + e % 8;
      if (i < lq && c < D) o[(q_row0 + i) * D + c] = T(st[e] / l);
    }
    simdgroup_barrier(mem_flags::mem_threadgroup);
  }
}
