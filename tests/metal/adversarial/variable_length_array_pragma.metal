// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// --- body ---
// attack: A variable length array (Metal has none) with the host compiler's -Werror=vla turned off by a pragma.
// expect: compile_error
// expect-message: variable length arrays are not supported in Metal
#pragma clang diagnostic ignored "-Wvla"
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float kept[cols / 32 + 1];
float m = -INFINITY;
for (int c = lane, k = 0; c < cols; c += 32, ++k) { kept[k] = xr[c]; m = max(m, kept[k]); }
m = simd_max(m);
float s = 0.0f;
for (int c = lane, k = 0; c < cols; c += 32, ++k) s += exp(kept[k] - m);
s = simd_sum(s);
float inv = 1.0f / s;
for (int c = lane, k = 0; c < cols; c += 32, ++k) yr[c] = exp(kept[k] - m) * inv;
