// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
constant float kCalls[2] = {1.0f, 0.0f};
// --- body ---
// attack: A program-scope constant written through a cast to a volatile thread pointer, to count calls (state kept
// between calls): Metal's compiler refuses the cast (it changes the pointer's address space), and so does metalsim's.
// expect: compile_error
// expect-message: the cast to 'volatile thread float*' makes a pointer to thread memory of 'kCalls', which points to constant memory
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
