// Bug: a libc function declared with C linkage and called (the host's process id). The text rules refuse this
// spelling; the library check refuses the import whatever spelling reaches the compiler (the test builds it
// without the text rules).
//
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
extern "C" int getpid();
// --- body ---
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
if (getpid() < 0) inv = 0;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
