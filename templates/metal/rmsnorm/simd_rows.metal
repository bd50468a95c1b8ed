// rmsnorm, built-in metal template family simd_rows: one SIMD group per row, float4 loads, no barriers.
// Knobs: ksearch sets each knob's template directive below to the value it tries (simd_rows.toml lists them).
// grid: 32 * rows, 1, 1
// threadgroup: 32 * R, 1, 1
// template: R = 4
// template: VEC = 4
#include "rms.h"
// --- body ---
// R SIMD groups (rows) per threadgroup share nothing; the second pass over the row mostly hits the cache.
const uint row = thread_position_in_grid.x / 32;
const uint lane = thread_index_in_simdgroup;
auto xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
// float4 accesses need 16-byte aligned rows: every row starts at a multiple of 4 floats when cols does.
const bool vectors = VEC == 4 && cols % 4 == 0;

const float ss = simd_sum(sum_squares(xr, cols, lane, 32, vectors));
write_scaled(xr, weight, yr, cols, lane, 32, vectors, metal::rsqrt(ss / float(cols) + eps));
