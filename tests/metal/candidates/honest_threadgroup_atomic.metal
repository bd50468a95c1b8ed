// Honest (must pass): sum of exponentials accumulated with a threadgroup atomic_float; max through simd + scratch.
// grid: 128 * rows, 1, 1
// threadgroup: 128, 1, 1
// --- body ---
threadgroup atomic_float total;
threadgroup float maxes[4];
uint row = threadgroup_position_in_grid.x;
uint lid = thread_index_in_threadgroup;
uint sg = simdgroup_index_in_threadgroup, lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
if (lid == 0) atomic_store_explicit(&total, 0.0f, memory_order_relaxed);
float m = -INFINITY;
for (int c = lid; c < cols; c += 128) m = max(m, xr[c]);
m = simd_max(m);
if (lane == 0) maxes[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = max(max(maxes[0], maxes[1]), max(maxes[2], maxes[3]));
float s = 0.0f;
for (int c = lid; c < cols; c += 128) s += exp(xr[c] - m);
s = simd_sum(s);
if (lane == 0) atomic_fetch_add_explicit(&total, s, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
float inv = 1.0f / atomic_load_explicit(&total, memory_order_relaxed);
for (int c = lid; c < cols; c += 128) y[size_t(row) * cols + c] = exp(xr[c] - m) * inv;
