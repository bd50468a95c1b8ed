// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
struct Huge { float v[40960]; };
// --- body ---
// attack: One 160 KiB struct copy into y, which starts inside the buffer and runs past the red zone that bounds
// checking keeps around it, over whatever the process has there. Stopped before the copy.
// expect: runtime_error
// expect-message: outside every buffer, threadgroup memory and the thread's stack
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
if (thread_position_in_grid.x == 0) *(device Huge*)y = *(const device Huge*)x;
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
