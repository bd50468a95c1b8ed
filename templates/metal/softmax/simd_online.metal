// softmax, built-in metal template family simd_online: one SIMD group per row, online max/sum, float4 loads.
// Knobs: ksearch sets each knob's template directive below to the value it tries (simd_online.toml lists them).
// grid: 32 * rows, 1, 1
// threadgroup: 32 * R, 1, 1
// template: R = 4
// template: VEC = 4
#include "online.h"
// --- body ---
// R SIMD groups (rows) per threadgroup share nothing: no threadgroup memory, no barriers; the row is
// read twice (statistics, then the normalized write), the second time mostly from the cache.
const uint row = thread_position_in_grid.x / 32;
const uint lane = thread_index_in_simdgroup;
auto xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
// float4 accesses need 16-byte aligned rows: every row starts at a multiple of 4 floats when cols does.
const bool vectors = VEC == 4 && cols % 4 == 0;

float m = -INFINITY, s = 0.0f;
row_statistics(xr, cols, lane, 32, vectors, m, s);
simd_merge(m, s);

const float inv = 1.0f / s;
write_normalized(xr, yr, cols, lane, 32, vectors, m, inv);
