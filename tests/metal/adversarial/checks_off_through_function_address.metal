// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
float layout_anchor(float v) { return v * 3.0f + 1.0f; }
// --- body ---
// attack: Clears the emulator's checking flag in the kernel's own library, at a fixed offset from a header function's
// address (0x3ec8 in the build this was found with), then writes out of bounds unchecked. Every write outside the
// buffers, threadgroup memory and the thread's stack now stops the run before it happens.
// expect: runtime_error
// expect-message: outside every buffer, threadgroup memory and the thread's stack
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
long library_address = (long)&layout_anchor;
device int* checking_flag = (device int*)(library_address + 0x3ec8);
*checking_flag = 0;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
float inv = 1.0f / s;
yr[cols + 5000] = 1.0f;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
