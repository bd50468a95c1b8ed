// softmax, built-in metal template family threadgroup_registers: one threadgroup per row, the row held in
// registers (one read, one write); longer rows take the two-pass online path.
// Knobs: ksearch sets each knob's template directive below to the value it tries (threadgroup_registers.toml lists them).
// grid: TG * rows, 1, 1
// threadgroup: TG, 1, 1
// template: TG = 256
// template: CHUNKS = 4
#include "online.h"
// --- body ---
const uint row = threadgroup_position_in_grid.x;
const uint tid = thread_position_in_threadgroup.x;
const uint simdgroup = simdgroup_index_in_threadgroup;
const uint lane = thread_index_in_simdgroup;
auto xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
threadgroup float partial_m[TG / 32];
threadgroup float partial_s[TG / 32];

float m = -INFINITY, s = 0.0f;
// The branch depends on cols only, so every thread of the threadgroup takes the same one (and its barrier).
if (cols % 4 == 0 && cols / 4 <= CHUNKS * TG) {
  // Thread tid keeps float4s tid, tid + TG, ...: loads stay coalesced, and memory is read once.
  const auto x4 = ks_ro_cast<float4>(xr);
  device float4* y4 = reinterpret_cast<device float4*>(yr);
  float4 v[CHUNKS];
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = int(tid) + k * TG;
    if (c < cols / 4) {
      v[k] = x4[c];
      online_add4(m, s, v[k]);
    }
  }
  threadgroup_merge<TG / 32>(m, s, partial_m, partial_s, simdgroup, lane);
  const float inv = 1.0f / s;
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = int(tid) + k * TG;
    if (c < cols / 4) y4[c] = metal::exp(v[k] - m) * inv;
  }
} else {
  const bool vectors = cols % 4 == 0;
  row_statistics(xr, cols, tid, TG, vectors, m, s);
  threadgroup_merge<TG / 32>(m, s, partial_m, partial_s, simdgroup, lane);
  write_normalized(xr, yr, cols, tid, TG, vectors, m, 1.0f / s);
}
