// Honest (must pass): after the SIMD reduction every thread stores the same row max/sum to threadgroup memory,
// unguarded; any order of these stores leaves the same value for the reads after the barrier.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// --- body ---
threadgroup float row_max;
threadgroup float row_sum;
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
row_max = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - row_max);
s = simd_sum(s);
row_sum = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
for (int c = lane; c < cols; c += 32) y[size_t(row) * cols + c] = exp(xr[c] - row_max) / row_sum;
