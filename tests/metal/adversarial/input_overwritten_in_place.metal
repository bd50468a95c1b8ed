// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1

// --- body ---
// attack: The softmax is written over the input (its const cast away) and copied out: the caller's array is
// changed, and each timed call after the first normalizes the previous call's result. A checker that runs the
// kernel on copies of the inputs and compares only the outputs sees a right answer.
// expect: runtime_error
// expect-message: write to input buffer 'x'
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
device float* xr = (device float*)(x + size_t(row) * cols);
device float* yr = y + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
float inv = 1.0f / s;
for (int c = lane; c < cols; c += 32) xr[c] = exp(xr[c] - m) * inv;
for (int c = lane; c < cols; c += 32) yr[c] = xr[c];
