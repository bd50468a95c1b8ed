// scratch: row_max = float32[rows]
// scratch: ready = uint32[1]
// --- kernel: softmax ---
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// init_value: 0
// outputs: y, row_max, ready
// --- body ---
// attack: Threadgroup 0 computes every row's maximum into a device table and raises a relaxed atomic flag; the
// other threadgroups spin on the flag, then read the table with plain loads. Passes wherever threadgroups
// run in order or on CPU threads; on a GPU a relaxed atomic publishes no other memory (and a threadgroup
// waiting for another one may never see it run).
// expect: runtime_error
// expect-message: data race on device buffer 'row_max'
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
device atomic_uint* flag = (device atomic_uint*)ready;
if (row == 0) {
  for (int r = 0; r < rows; ++r) {
    float rm = -INFINITY;
    for (int c = lane; c < cols; c += 32) rm = max(rm, x[size_t(r) * cols + c]);
    rm = simd_max(rm);
    if (lane == 0) row_max[r] = rm;
  }
  simdgroup_barrier(mem_flags::mem_device);
  if (lane == 0) atomic_store_explicit(flag, 1u, memory_order_relaxed);
} else {
  while (atomic_load_explicit(flag, memory_order_relaxed) != 1u) {
  }
}
float m = row_max[row];
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
float inv = 1.0f / s;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
