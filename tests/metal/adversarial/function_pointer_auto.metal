// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
inline float ident(float v) { return v; }
// --- body ---
// attack: 12: a function pointer in another spelling: `auto f = ident;` (a function pointer deduced, none spelled). Metal has no
// function pointers in MLX kernels; the text rule wants `(*name)(`, and metalsim finds the call through the pointer in
// the kernel's IR (it looked at the header's functions only).
// expect: compile_error
// expect-message: call through a function pointer
auto f = ident;  // deduces float (*)(float)
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
for (int c = lane; c < cols; c += 32) yr[c] = f(exp(xr[c] - m) / s);
