// matmul, built-in metal template family simdgroup_matrix: SG_M x SG_N SIMD groups per threadgroup, each
// computing TM x TN 8x8 blocks of C with simdgroup_float8x8 multiply-accumulates from BK-deep slices of A
// and B staged in threadgroup memory.
// Knobs: ksearch sets each knob's template directive below to the value it tries (simdgroup_matrix.toml lists them).
// The grid counts threads: one threadgroup (32 * SG_M * SG_N threads) per BM x BN tile of C, BM = 8 * SG_M * TM,
// BN = 8 * SG_N * TN.
// grid: 32 * SG_M * SG_N * ceil(n / (8 * SG_N * TN)), ceil(m / (8 * SG_M * TM)), 1
// threadgroup: 32 * SG_M * SG_N, 1, 1
// template: TM = 2
// template: TN = 2
// template: BK = 16
// template: SG_M = 2
// template: SG_N = 2
#include "tiles.h"
// --- body ---
constexpr int BM = 8 * SG_M * TM, BN = 8 * SG_N * TN, THREADS = 32 * SG_M * SG_N;
const uint tid = thread_position_in_threadgroup.x;
const uint sg = simdgroup_index_in_threadgroup, lane = thread_index_in_simdgroup;
const int sg_row = int(sg) / SG_N * TM * 8, sg_col = int(sg) % SG_N * TN * 8;  // the SIMD group's block in the tile
const int row0 = int(threadgroup_position_in_grid.y) * BM, col0 = int(threadgroup_position_in_grid.x) * BN;
threadgroup float As[BM * BK];  // row-major [BM][BK]
threadgroup float Bs[BK * BN];  // row-major [BK][BN]
threadgroup float edge[SG_M * SG_N * 64];  // a SIMD group's 8x8 block on its way to a partial edge of C

simdgroup_float8x8 acc[TM][TN];
for (int i = 0; i < TM; ++i)
  for (int j = 0; j < TN; ++j) acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);

for (int k0 = 0; k0 < k; k0 += BK) {
  stage_a<BM, BK, THREADS>(A, As, m, k, row0, k0, tid, BK, 1);
  stage_b<BK, BN, THREADS>(B, Bs, k, n, k0, col0, tid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (int kk = 0; kk < BK; kk += 8) {
    simdgroup_float8x8 a[TM], b[TN];
    for (int i = 0; i < TM; ++i) simdgroup_load(a[i], As + (sg_row + i * 8) * BK + kk, BK);
    for (int j = 0; j < TN; ++j) simdgroup_load(b[j], Bs + kk * BN + sg_col + j * 8, BN);
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j) simdgroup_multiply_accumulate(acc[i][j], a[i], b[j], acc[i][j]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}

// Whole 8x8 blocks go straight to C; blocks on the bottom or right edge pass through threadgroup memory so
// that each lane writes only its in-range elements (lane l: elements 2l and 2l + 1 of the block).
threadgroup float* mine = edge + sg * 64;
for (int i = 0; i < TM; ++i)
  for (int j = 0; j < TN; ++j) {
    const int r0 = row0 + sg_row + i * 8, c0 = col0 + sg_col + j * 8;
    if (r0 >= m || c0 >= n) continue;
    if (r0 + 8 <= m && c0 + 8 <= n) {
      simdgroup_store(acc[i][j], C + size_t(r0) * n + c0, n);
      continue;
    }
    simdgroup_store(acc[i][j], mine, 8);
    simdgroup_barrier(mem_flags::mem_threadgroup);
    for (int e = int(lane) * 2; e < int(lane) * 2 + 2; ++e) {
      const int r = r0 + e / 8, c = c0 + e % 8;
      if (r < m && c < n) C[size_t(r) * n + c] = mine[e];
    }
    simdgroup_barrier(mem_flags::mem_threadgroup);
  }
