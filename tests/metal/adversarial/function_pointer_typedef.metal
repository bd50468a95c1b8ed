// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
typedef float Fn(float);
inline float ident(float v) { return v; }
// --- body ---
// attack: 12: a function pointer through a function-type typedef (`Fn* f = ident;`): no `(*name)(` for the text rule;
// metalsim finds the call through it in the kernel's IR (Metal has no function pointers in MLX custom kernels).
// expect: compile_error
// expect-message: call through a function pointer
Fn* f = ident;
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
