// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
_Pragma("clang attribute push (__attribute__((constructor)), apply_to = function)")
void at_load() {}
_Pragma("clang attribute pop")
// --- body ---
// attack: Host code run when the library is loaded: a constructor attribute applied through the _Pragma operator.
// expect: rejected
// expect-message: _Pragma is allowed only for loop hints
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
