// Two kernels (docs/METAL.md, multi-kernel candidates): each row's max and sum of exponentials into
// a scratch buffer (one SIMD group per row), then one thread per element normalizes.
// scratch: stats = float32[2 * rows]
// --- kernel: row_stats ---
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// outputs: stats
// --- body ---
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
if (lane == 0) {
  stats[2 * row] = m;
  stats[2 * row + 1] = s;
}
// --- kernel: normalize ---
// grid: cols, rows, 1
// threadgroup: TG, 1, 1
// template: TG = 64  // ksearch:knob TG = 64 in [32, 64, 128]
// outputs: y
// --- body ---
uint c = thread_position_in_grid.x, row = thread_position_in_grid.y;
if (c < uint(cols)) y[size_t(row) * cols + c] = exp(x[size_t(row) * cols + c] - stats[2 * row]) / stats[2 * row + 1];
