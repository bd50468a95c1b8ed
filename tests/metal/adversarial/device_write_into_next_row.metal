// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1

// --- body ---
// attack: Each threadgroup also writes a wrong value into the first element of the next row, which the next threadgroup overwrites: right whenever threadgroups run in order, as on one CPU thread; on a GPU they run in any order.
// expect: runtime_error
// expect-message: in different threadgroups
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
float inv = 1.0f / s;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
if (lane == 0 && int(row) + 1 < rows) y[size_t(row + 1) * cols] = 0.0f;
