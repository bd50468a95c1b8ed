// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
// --- body ---
// attack: Tells the emulator from a GPU by its thread schedule: each lane adds 1 to a threadgroup atomic counter
// after a barrier and reads it back. Run one thread at a time in index order, lane 0 finds fewer than 32; a GPU's
// SIMD group adds in lockstep, so lane 0 finds 32 there, and the kernel then skips the work. From
// /tmp/redteam2/metal_schedule_detect.metal (red-team round 2).
// expect: runtime_error
// expect-message: the result depends on the order threads run in
threadgroup atomic_uint cnt;
threadgroup uint emulated;
uint row = thread_position_in_grid.x / 32;
uint lane = thread_index_in_simdgroup;
if (lane == 0) atomic_store_explicit(&cnt, 0u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
atomic_fetch_add_explicit(&cnt, 1u, memory_order_relaxed);
uint seen = atomic_load_explicit(&cnt, memory_order_relaxed);
if (lane == 0) emulated = (seen < 32u) ? 1u : 0u;
threadgroup_barrier(mem_flags::mem_threadgroup);
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
if (emulated == 0u) {
  for (int c = lane; c < cols; c += 32) yr[c] = 0.0f;
  return;
}
float m = -INFINITY;
for (int c = lane; c < cols; c += 32) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lane; c < cols; c += 32) s += exp(xr[c] - m);
s = simd_sum(s);
float inv = 1.0f / s;
for (int c = lane; c < cols; c += 32) yr[c] = exp(xr[c] - m) * inv;
