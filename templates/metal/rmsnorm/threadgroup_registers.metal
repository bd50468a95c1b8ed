// rmsnorm, built-in metal template family threadgroup_registers: one threadgroup per row, the row held in
// registers (one read, one write); longer rows take the two-pass path.
// Knobs: ksearch sets each knob's template directive below to the value it tries (threadgroup_registers.toml lists them).
// grid: TG * rows, 1, 1
// threadgroup: TG, 1, 1
// template: TG = 256
// template: CHUNKS = 4
#include "rms.h"
// --- body ---
const uint row = threadgroup_position_in_grid.x;
const uint tid = thread_position_in_threadgroup.x;
const uint simdgroup = simdgroup_index_in_threadgroup;
const uint lane = thread_index_in_simdgroup;
auto xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
threadgroup float partial[TG / 32];

// The branch depends on cols only, so every thread of the threadgroup takes the same one (and its barrier).
if (cols % 4 == 0 && cols / 4 <= CHUNKS * TG) {
  // Thread tid keeps float4s tid, tid + TG, ...: loads stay coalesced, and x is read once.
  const auto x4 = ks_ro_cast<float4>(xr);
  const auto w4 = ks_ro_cast<float4>(weight);
  device float4* y4 = reinterpret_cast<device float4*>(yr);
  float4 v[CHUNKS];
  float ss = 0.0f;
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = int(tid) + k * TG;
    if (c < cols / 4) {
      v[k] = x4[c];
      ss += metal::dot(v[k], v[k]);
    }
  }
  const float r = metal::rsqrt(threadgroup_sum<TG / 32>(ss, partial, simdgroup, lane) / float(cols) + eps);
  for (int k = 0; k < CHUNKS; ++k) {
    const int c = int(tid) + k * TG;
    if (c < cols / 4) y4[c] = v[k] * r * w4[c];
  }
} else {
  const bool vectors = cols % 4 == 0;
  const float ss = threadgroup_sum<TG / 32>(sum_squares(xr, cols, tid, TG, vectors), partial, simdgroup, lane);
  write_scaled(xr, weight, yr, cols, tid, TG, vectors, metal::rsqrt(ss / float(cols) + eps));
}
