// Honest (must pass): simdgroup_matrix matmul: a 32x32 tile of C per threadgroup of 4 SIMD groups, each owning a
// 16x16 quarter as 2x2 8x8 accumulators; A and B staged through zero-padded threadgroup tiles (BK = 8), fragments
// loaded with simdgroup_load, simdgroup_barrier between the SIMD group's loads and its multiplies; the result goes
// through a threadgroup tile so that edge tiles store only what lies inside C.
// grid: 128 * ceil(n / 32), ceil(m / 32), 1
// threadgroup: 128, 1, 1
#define BM 32
#define BN 32
#define BK 8
// --- body ---
threadgroup float a_tile[BM * BK];
threadgroup float b_tile[BK * BN];
threadgroup float c_tile[BM * BN];
uint lid = thread_index_in_threadgroup;
uint sg = simdgroup_index_in_threadgroup;
int row0 = int(threadgroup_position_in_grid.y) * BM;
int col0 = int(threadgroup_position_in_grid.x) * BN;
int sg_row = int(sg / 2) * 16, sg_col = int(sg % 2) * 16;

simdgroup_float8x8 acc[2][2];
for (int i = 0; i < 2; ++i)
  for (int j = 0; j < 2; ++j) acc[i][j] = make_filled_simdgroup_matrix<float, 8, 8>(0.0f);

for (int k0 = 0; k0 < k; k0 += BK) {
  // 128 threads load the 32x8 A tile and the 8x32 B tile, two elements each.
  for (uint e = lid; e < BM * BK; e += 128) {
    int r = int(e) / BK, c = int(e) % BK;
    a_tile[e] = (row0 + r < m && k0 + c < k) ? A[size_t(row0 + r) * k + k0 + c] : 0.0f;
    int br = int(e) / BN, bc = int(e) % BN;
    b_tile[e] = (k0 + br < k && col0 + bc < n) ? B[size_t(k0 + br) * n + col0 + bc] : 0.0f;
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_float8x8 a_frag[2], b_frag[2];
  for (int i = 0; i < 2; ++i) simdgroup_load(a_frag[i], a_tile + (sg_row + 8 * i) * BK, BK);
  for (int j = 0; j < 2; ++j) simdgroup_load(b_frag[j], b_tile + sg_col + 8 * j, BN);
  simdgroup_barrier(mem_flags::mem_none);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 2; ++j) simdgroup_multiply_accumulate(acc[i][j], a_frag[i], b_frag[j], acc[i][j]);
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
for (int i = 0; i < 2; ++i)
  for (int j = 0; j < 2; ++j) simdgroup_store(acc[i][j], c_tile, BN, ulong2(sg_col + 8 * j, sg_row + 8 * i));
threadgroup_barrier(mem_flags::mem_threadgroup);
for (uint e = lid; e < BM * BN; e += 128) {
  int r = int(e) / BN, c = int(e) % BN;
  if (row0 + r < m && col0 + c < n) C[size_t(row0 + r) * n + col0 + c] = c_tile[e];
}
