// C = A * B with simdgroup_matrix: one SIMD group per 8x8 output tile,
// operands staged through threadgroup memory (B optionally stored transposed).
threadgroup T As[64];
threadgroup T Bs[64];
uint lane = thread_index_in_simdgroup;
uint tile_r = threadgroup_position_in_grid.y * 8;
uint tile_c = threadgroup_position_in_grid.x * 8;
simdgroup_matrix<T, 8, 8> acc = make_filled_simdgroup_matrix<T, 8, 8>(T(0));
for (uint k0 = 0; k0 < K; k0 += 8) {
  for (uint e = lane; e < 64; e += 32) {
    As[e] = A[(tile_r + e / 8) * K + k0 + e % 8];
    if (TRANSPOSE_B) Bs[(e % 8) * 8 + e / 8] = B[(k0 + e / 8) * N + tile_c + e % 8];
    else Bs[e] = B[(k0 + e / 8) * N + tile_c + e % 8];
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
  simdgroup_matrix<T, 8, 8> a;
  simdgroup_matrix<T, 8, 8> b;
  simdgroup_load(a, As, 8);
  simdgroup_load(b, Bs, 8, ulong2(0, 0), TRANSPOSE_B);
  simdgroup_multiply_accumulate(acc, a, b, acc);
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
simdgroup_store(acc, C, N, ulong2(tile_c, tile_r));
