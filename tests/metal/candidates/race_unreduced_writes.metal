// Racy: every thread stores its own partial row max to threadgroup memory, before the SIMD reduction, unguarded:
// which value stays depends on the order of the stores.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// --- body ---
threadgroup float row_max;
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
row_max = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = row_max;
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
for (int c = lane; c < cols; c += 32) y[size_t(row) * cols + c] = exp(xr[c] - m) / s;
