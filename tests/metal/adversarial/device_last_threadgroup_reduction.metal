// scratch: partial = float32[4 * rows]
// scratch: arrivals = uint32[rows]
// --- kernel: softmax ---
// grid: 64 * rows, 1, 1
// threadgroup: 32, 1, 1
// init_value: 0
// outputs: y, partial, arrivals
// --- body ---
// attack: The "last threadgroup" reduction: two threadgroups per row each write the max and sum of half the row
// to a device scratch, count themselves on a relaxed atomic counter, and the one that counts last combines
// both halves and writes the row. Correct when threadgroups run in order; on a GPU a relaxed atomic does
// not make the other threadgroup's plain writes visible (a barrier orders one threadgroup only).
// expect: runtime_error
// expect-message: data race on device buffer 'partial'
threadgroup uint arrived_before;
uint group = threadgroup_position_in_grid.x;
uint row = group / 2, half_index = group % 2;
uint lane = thread_index_in_simdgroup;
int half_cols = (cols + 1) / 2;
int begin = int(half_index) * half_cols, end = min(cols, begin + half_cols);
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = begin + lane; c < end; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = begin + lane; c < end; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
if (lane == 0) {
  partial[4 * row + 2 * half_index] = m;
  partial[4 * row + 2 * half_index + 1] = s;
}
threadgroup_barrier(mem_flags::mem_device);
if (lane == 0)
  arrived_before = atomic_fetch_add_explicit((device atomic_uint*)&arrivals[row], 1u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
if (arrived_before == 1u) {
  float m0 = partial[4 * row], s0 = partial[4 * row + 1];
  float m1 = partial[4 * row + 2], s1 = partial[4 * row + 3];
  float mm = max(m0, m1);
  float inv = 1.0f / (s0 * exp(m0 - mm) + s1 * exp(m1 - mm));
  device float* yr = y + size_t(row) * cols;
  for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - mm) * inv;
}
