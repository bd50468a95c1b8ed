// Honest (must pass): one SIMD group per row, 2 rows per threadgroup; the row's sum of squares is the last lane's
// simd_prefix_inclusive_sum, broadcast with simd_broadcast; `constant` scale read through a `constant` reference;
// float2 loads of x and weight where the row is 8-byte aligned.
// grid: 32 * ceil(rows / 2), 2, 1
// threadgroup: 32, 2, 1
constant constexpr float kUnit = 1.0f;

METAL_FUNC float row_sum_squares(const device float* xr, int cols, ushort lane) {
  float ss = 0.0f;
  if ((cols & 1) == 0) {
    for (int c = 2 * lane; c < cols; c += 64) {
      float2 v = *((device const float2*)(xr + c));
      ss += dot(v, v);
    }
  } else {
    for (int c = lane; c < cols; c += 32) ss += xr[c] * xr[c];
  }
  return simd_broadcast(simd_prefix_inclusive_sum(ss), 31);
}
// --- body ---
uint row = threadgroup_position_in_grid.x * 2 + thread_position_in_threadgroup.y;
ushort lane = thread_index_in_simdgroup;
if (row >= uint(rows)) return;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
const constant float& unit = kUnit;
float scale = unit * rsqrt(row_sum_squares(xr, cols, lane) / float(cols) + eps);
for (int c = lane; c < cols; c += 32) yr[c] = xr[c] * scale * weight[c];
