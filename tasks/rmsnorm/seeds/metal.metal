// Seed: one SIMD group (32 threads) per row, R rows per threadgroup; a strided pass for the sum of
// squares, reduced with simd_sum, then a strided pass writing x * rsqrt(mean + eps) * weight.
// grid: 32 * rows, 1, 1
// threadgroup: 32 * R, 1, 1
// template: R = 1  // ksearch:knob R = 1 in [1, 2, 4, 8]
// --- body ---
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
auto xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;

float ss = 0.0f;
for (int c = lane; c < cols; c += 32) ss += xr[c] * xr[c];
ss = simd_sum(ss);

float r = rsqrt(ss / float(cols) + eps);
for (int c = lane; c < cols; c += 32) yr[c] = xr[c] * r * weight[c];
