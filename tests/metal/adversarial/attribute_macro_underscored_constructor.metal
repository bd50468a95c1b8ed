// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
#define __always_inline__ constructor
inline __attribute__((__always_inline__)) void at_load() {}
// --- body ---
// attack: An allowed attribute's underscored name (__always_inline__) redefined by a macro into the host's load-time constructor.
// expect: rejected
// expect-message: no macro may redefine them
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
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) / s;
