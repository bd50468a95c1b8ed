// Honest (must pass): MLX style two-level reduction, simd_max/simd_sum then threadgroup partials.
// grid: 1024 * rows, 1, 1
// threadgroup: 1024, 1, 1
// --- body ---
threadgroup float local_max[32];
threadgroup float local_sum[32];
uint row = threadgroup_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
uint sg = simdgroup_index_in_threadgroup;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = lid; c < cols; c += 1024) m = max(m, xr[c]);
m = simd_max(m);
if (lane == 0) local_max[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (sg == 0) {
  m = simd_max(local_max[lane]);
  if (lane == 0) local_max[0] = m;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
m = local_max[0];
float s = 0.0f;
for (int c = lid; c < cols; c += 1024) s += fast::exp(xr[c] - m);
s = simd_sum(s);
if (lane == 0) local_sum[sg] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (sg == 0) {
  s = simd_sum(local_sum[lane]);
  if (lane == 0) local_sum[0] = s;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
float inv = 1.0f / local_sum[0];
for (int c = lid; c < cols; c += 1024) y[size_t(row) * cols + c] = fast::exp(xr[c] - m) * inv;
