// rmsnorm, built-in metal template family threadgroup_rows: one threadgroup per row, float4 loads, SIMD-group
// then threadgroup-memory sum.
// Knobs: ksearch sets each knob's template directive below to the value it tries (threadgroup_rows.toml lists them).
// grid: TG * rows, 1, 1
// threadgroup: TG, 1, 1
// template: TG = 256
// template: VEC = 4
#include "rms.h"
// --- body ---
// TG threads stream one row: long rows get a whole threadgroup's memory parallelism.
const uint row = threadgroup_position_in_grid.x;
const uint tid = thread_position_in_threadgroup.x;
auto xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
const bool vectors = VEC == 4 && cols % 4 == 0;

threadgroup float partial[TG / 32];
const float ss = threadgroup_sum<TG / 32>(sum_squares(xr, cols, tid, TG, vectors), partial,
                                          simdgroup_index_in_threadgroup, thread_index_in_simdgroup);
write_scaled(xr, weight, yr, cols, tid, TG, vectors, metal::rsqrt(ss / float(cols) + eps));
