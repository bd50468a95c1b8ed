// Honest (must pass): a program-scope `constant` table in the header (read-only data, not mutable state), and
// exp2 with log2(e) from the table.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
constant float kLog2e[2] = {1.4426950408889634f, 1.0f};
// --- body ---
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp2((xr[c] - m) * kLog2e[0]);
s = kLog2e[1] / simd_sum(s);
for (int c = lane; c < cols; c += 32) y[size_t(row) * cols + c] = exp2((xr[c] - m) * kLog2e[0]) * s;
