// Honest (must pass): each thread writes exp(x - m) to y, then reads back its own elements to normalize in place.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// --- body ---
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lane; c < cols; c += 32) {
  float e = exp(xr[c] - m);
  yr[c] = e;
  s += e;
}
s = simd_sum(s);
for (int c = lane; c < cols; c += 32) yr[c] /= s;
