// matmul, built-in metal template family threadgroup_tiles: a threadgroup computes a BM x BN tile of C
// (BM = T * TM, BN = T * TN) from BK-deep slices of A and B staged in threadgroup memory; each thread
// accumulates TM x TN elements in registers.
// Knobs: ksearch sets each knob's template directive below to the value it tries (threadgroup_tiles.toml lists them).
// The grid counts threads: T per tile along each axis, ceil(n / BN) x ceil(m / BM) tiles.
// grid: T * ceil(n / (T * TN)), T * ceil(m / (T * TM)), 1
// threadgroup: T, T, 1
// template: T = 16
// template: TM = 4
// template: TN = 4
// template: BK = 16
#include "tiles.h"
// --- body ---
constexpr int BM = T * TM, BN = T * TN;
const uint tx = thread_position_in_threadgroup.x, ty = thread_position_in_threadgroup.y;
const uint tid = ty * T + tx;
const int row0 = int(threadgroup_position_in_grid.y) * BM, col0 = int(threadgroup_position_in_grid.x) * BN;
// A's slice transposed ([BK][BM]) so that a thread's TM rows at one kk are T apart in one row of the tile.
threadgroup float As[BK * BM];
threadgroup float Bs[BK * BN];

// Thread (tx, ty) owns rows ty + i * T and columns tx + j * T: neighbouring threads touch neighbouring
// elements in threadgroup memory and in C.
float acc[TM][TN];
for (int i = 0; i < TM; ++i)
  for (int j = 0; j < TN; ++j) acc[i][j] = 0.0f;

for (int k0 = 0; k0 < k; k0 += BK) {
  stage_a<BM, BK, T * T>(A, As, m, k, row0, k0, tid, 1, BM);
  stage_b<BK, BN, T * T>(B, Bs, k, n, k0, col0, tid);
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (int kk = 0; kk < BK; ++kk) {
    float a[TM], b[TN];
    for (int i = 0; i < TM; ++i) a[i] = As[kk * BM + int(ty) + i * T];
    for (int j = 0; j < TN; ++j) b[j] = Bs[kk * BN + int(tx) + j * T];
    for (int i = 0; i < TM; ++i)
      for (int j = 0; j < TN; ++j) acc[i][j] = fma(a[i], b[j], acc[i][j]);
  }
  threadgroup_barrier(mem_flags::mem_threadgroup);
}

for (int i = 0; i < TM; ++i) {
  const int r = row0 + int(ty) + i * T;
  if (r >= m) break;
  for (int j = 0; j < TN; ++j) {
    const int c = col0 + int(tx) + j * T;
    if (c < n) C[size_t(r) * n + c] = acc[i][j];
  }
}
