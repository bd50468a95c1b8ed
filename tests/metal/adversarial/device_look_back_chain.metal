// scratch: carry = float32[rows]
// scratch: published = uint32[rows]
// --- kernel: softmax ---
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// init_value: 0
// outputs: y, carry, published
// --- body ---
// attack: A look-back chain: threadgroup r waits on threadgroup r-1's relaxed atomic flag, reads its running maximum
// with a plain load, shifts its row by max(carried, own maximum) and publishes its own. Correct whenever the
// flag is seen after the value (threadgroups in order, CPU threads); on a GPU nothing orders the plain
// write of one threadgroup before another's read.
// expect: runtime_error
// expect-message: data race on device buffer 'carry'
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
if (row > 0) {
  while (atomic_load_explicit((device atomic_uint*)&published[row - 1], memory_order_relaxed) == 0u) {
  }
  m = max(m, carry[row - 1]);
}
if (lane == 0) {
  carry[row] = m;
  atomic_store_explicit((device atomic_uint*)&published[row], 1u, memory_order_relaxed);
}
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
float inv = 1.0f / s;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
