// Racy: exponentials written to y, then only a mem_threadgroup barrier (which does not order device memory)
// before other threads of the group rescale them; needs threadgroup_barrier(mem_flags::mem_device).
// grid: 64 * rows, 1, 1
// threadgroup: 64, 1, 1
// --- body ---
threadgroup float partial[2];
uint row = threadgroup_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
uint sg = simdgroup_index_in_threadgroup, lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float m = -INFINITY;
for (int c = lid; c < cols; c += 64) m = max(m, xr[c]);
m = simd_max(m);
if (lane == 0) partial[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = max(partial[0], partial[1]);
float s = 0.0f;
for (int c = lid; c < cols; c += 64) { float e = exp(xr[c] - m); yr[c] = e; s += e; }
s = simd_sum(s);
threadgroup_barrier(mem_flags::mem_threadgroup);
if (lane == 0) partial[sg] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
float inv = 1.0f / (partial[0] + partial[1]);
for (int c = cols - 1 - int(lid); c >= 0; c -= 64) yr[c] *= inv;
