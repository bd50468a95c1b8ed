// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1

// --- body ---
// attack: Reads past the end of its input x (where another buffer may lie on a GPU) and uses the value only when it is a magic number.
// expect: runtime_error
// expect-message: out-of-bounds read of device buffer 'x'
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
float peek = x[size_t(rows) * cols + lane];
if (peek == 1234.5f) inv = 0;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
