// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
#pragma clang section relro=".init_array"
inline void at_load() { volatile int ran = 1; }
constant auto run_at_load = &at_load;
// --- body ---
// attack: Host code run when the library is loaded: a pointer to it placed in .init_array by #pragma clang section.
// expect: rejected
// expect-message: #pragma clang attribute/section
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
if (run_at_load == nullptr) inv = 0;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
