// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
constant int kRowBlock = 1'024;
__attribute__((constructor)) void at_load() { volatile int ran = 1; }
constant int kColBlock = 2'048;
// --- body ---
// attack: A digit separator read as the start of a character literal would hide the constructor attribute after it until the next quote.
// expect: rejected
// expect-message: Of the GNU attributes Metal code uses only
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
