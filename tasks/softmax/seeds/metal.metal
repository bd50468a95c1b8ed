// Seed: one SIMD group (32 threads) per row, R rows per threadgroup; three strided passes over the
// row (max, sum of exponentials, normalized write), each reduced across the SIMD group with
// simd_max / simd_sum.
// grid: 32 * rows, 1, 1
// threadgroup: 32 * R, 1, 1
// template: R = 1  // ksearch:knob R = 1 in [1, 2, 4, 8]
// --- body ---
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
auto xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;

float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);

float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);

float inv = 1.0f / s;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
