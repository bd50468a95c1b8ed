// Honest (must pass): a fixed grid of 4 threadgroups, grid-stride over rows; one SIMD group per row at a time.
// grid: 4 * 64, 1, 1
// threadgroup: 64, 1, 1
// --- body ---
uint sg = simdgroup_index_in_threadgroup;
uint lane = thread_index_in_simdgroup;
uint first = threadgroup_position_in_grid.x * 2 + sg;
uint stride = threadgroups_per_grid.x * 2;
for (uint row = first; row < uint(rows); row += stride) {
  const device float* xr = x + size_t(row) * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
  m = simd_max(m);
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
  s = simd_sum(s);
  for (int c = lane; c < cols; c += 32) y[size_t(row) * cols + c] = exp(xr[c] - m) / s;
}
