// softmax, built-in metal template family threadgroup_online: one threadgroup per row, online max/sum,
// float4 loads, SIMD-group then threadgroup-memory merge.
// Knobs: ksearch sets each knob's template directive below to the value it tries (threadgroup_online.toml lists them).
// grid: TG * rows, 1, 1
// threadgroup: TG, 1, 1
// template: TG = 256
// template: VEC = 4
#include "online.h"
// --- body ---
// TG threads stream one row: long rows (tens of thousands of columns) get the whole threadgroup's
// memory parallelism, where a single SIMD group per row would leave the GPU idle.
const uint row = threadgroup_position_in_grid.x;
const uint tid = thread_position_in_threadgroup.x;
auto xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
const bool vectors = VEC == 4 && cols % 4 == 0;

float m = -INFINITY, s = 0.0f;
row_statistics(xr, cols, tid, TG, vectors, m, s);
threadgroup float partial_m[TG / 32];
threadgroup float partial_s[TG / 32];
threadgroup_merge<TG / 32>(m, s, partial_m, partial_s, simdgroup_index_in_threadgroup, thread_index_in_simdgroup);

const float inv = 1.0f / s;
write_normalized(xr, yr, cols, tid, TG, vectors, m, inv);
