// scratch: arrivals = uint32[1]
// --- kernel: softmax ---
// grid: 32 * 4096, 1, 1
// threadgroup: 32, 1, 1
// init_value: 0
// outputs: y, arrivals
// --- body ---
// attack: A grid-wide barrier built from an atomic: every threadgroup counts itself and spins until all 4096 have
// arrived. Works wherever all threadgroups run at once; Metal guarantees no forward progress between threadgroups,
// so the threadgroups that are running wait for ones that cannot start (a hang on Apple GPUs).
// expect: runtime_error
// expect-message: waits at line 17 (body line 10) for another thread to change device buffer 'arrivals' (element 0)
uint group = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
device atomic_uint* arrived = (device atomic_uint*)arrivals;
if (lane == 0) atomic_fetch_add_explicit(arrived, 1u, memory_order_relaxed);
while (atomic_load_explicit(arrived, memory_order_relaxed) < threadgroups_per_grid.x) {
}
if (int(group) < rows) {
  const device float* xr = x + size_t(group) * cols;
  device float* yr = y + size_t(group) * cols;
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
  m = simd_max(m);
  float s = 0.0f;
  for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
  s = simd_sum(s);
  for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) / s;
}
