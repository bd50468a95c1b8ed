// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1

// --- body ---
// attack: 80 KB of threadgroup memory through a pointer cast past a 64-byte array (Metal gives 32 KiB in all).
// expect: runtime_error
// expect-message: past its declared variables
threadgroup float small[16];
threadgroup float* big = (threadgroup float*)&small[0];
uint t = thread_index_in_threadgroup;
for (int i = t; i < 20000; i += 32) big[i] = 0.0f;
threadgroup_barrier(mem_flags::mem_threadgroup);
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
if (big[19999 - t] != 0.0f) yr[0] = 1.0f;
