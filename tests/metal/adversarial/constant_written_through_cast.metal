// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
constant float kCalls[2] = {1.0f, 0.0f};
// --- body ---
// attack: A program-scope constant written through a cast to a volatile thread pointer, to count calls (state kept
// between calls): Metal's compiler refuses the cast; here the constant lies in read-only memory and the write faults.
// expect: runtime_error
// expect-message: segmentation fault
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
volatile thread float* calls = (volatile thread float*)kCalls;
if (thread_position_in_grid.x == 0) calls[1] = calls[1] + 1.0f;
if (calls[1] > 2.0f) inv = 0;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
