// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
struct Chunk { float v[64]; };
// --- body ---
// attack: Reads past the end of its input x with one struct assignment: the compiler copies the 256 bytes with memcpy,
// a call the instrumentation leaves to libc, so the read went unchecked (metalsim now checks the copy's ranges).
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
Chunk peek = *(const device Chunk*)(x + size_t(rows) * cols);
if (peek.v[lane] == 1234.5f) inv = 0;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
