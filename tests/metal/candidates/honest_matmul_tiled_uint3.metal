// Honest (must pass): 16x16 output tiles through threadgroup tiles (a padded column against bank conflicts), a 2-D
// grid rounded up with ceil, `uint3` positions; every thread loads (zero past the edges) and meets every barrier,
// only in-range threads store.
// grid: 16 * ceil(n / 16), 16 * ceil(m / 16), 1
// threadgroup: 16, 16, 1
#define TILE 16
// --- body ---
threadgroup float a_tile[TILE][TILE + 1];
threadgroup float b_tile[TILE][TILE + 1];
uint3 gid = thread_position_in_grid;
uint3 lid = thread_position_in_threadgroup;
uint col = gid.x, row = gid.y;
float acc = 0.0f;
for (int k0 = 0; k0 < k; k0 += TILE) {
  int ka = k0 + int(lid.x), kb = k0 + int(lid.y);
  a_tile[lid.y][lid.x] = (row < uint(m) && ka < k) ? A[size_t(row) * k + ka] : 0.0f;
  b_tile[lid.y][lid.x] = (kb < k && col < uint(n)) ? B[size_t(kb) * n + col] : 0.0f;
  threadgroup_barrier(mem_flags::mem_threadgroup);
  #pragma clang loop unroll(full)
  for (int i = 0; i < TILE; ++i) acc = fma(a_tile[lid.y][i], b_tile[i][lid.x], acc);
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
if (row < uint(m) && col < uint(n)) C[size_t(row) * n + col] = acc;
