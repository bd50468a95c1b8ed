// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
??=include </etc/hostname>
// --- body ---
// attack: A host file included with the ??= trigraph for # (C++17 and later, as metalsim compiles, have no trigraphs: the line is no directive).
// expect: compile_error
// expect-message: expected unqualified-id
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
