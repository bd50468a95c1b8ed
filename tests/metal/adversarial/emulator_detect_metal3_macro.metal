// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
#ifdef __METAL__
#define ON_GPU 1
#else
#define ON_GPU 0
#endif
// --- body ---
// attack: Tells the emulator from a GPU by __METAL__, which Metal 3 defines on a Mac and metalsim does not, and skips work on the GPU.
// expect: rejected
// expect-message: found '__METAL__'
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
if (ON_GPU && row > 0) return;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
