// Honest (must pass under every schedule): each SIMD group claims a slot with a threadgroup atomic counter (which
// group gets which slot depends on the order they run in) and stores its partial max and sum there; after a
// barrier every thread combines all slots, whatever their order.
// grid: 128 * rows, 1, 1
// threadgroup: 128, 1, 1
// --- body ---
threadgroup atomic_uint next_slot;
threadgroup float slot_max[4];
threadgroup float slot_sum[4];
uint row = threadgroup_position_in_grid.x;
uint lid = thread_index_in_threadgroup;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
if (lid == 0) atomic_store_explicit(&next_slot, 0u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
float m = -INFINITY;
for (int c = lid; c < cols; c += 128) m = max(m, xr[c]);
m = simd_max(m);
float s = 0.0f;
for (int c = lid; c < cols; c += 128) s += exp(xr[c] - m);
s = simd_sum(s);
if (lane == 0) {
  uint slot = atomic_fetch_add_explicit(&next_slot, 1u, memory_order_relaxed);
  slot_max[slot] = m;
  slot_sum[slot] = s;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
float row_max = max(max(slot_max[0], slot_max[1]), max(slot_max[2], slot_max[3]));
float total = 0.0f;
for (int i = 0; i < 4; ++i) total += slot_sum[i] * exp(slot_max[i] - row_max);
float inv = 1.0f / total;
for (int c = lid; c < cols; c += 128) y[size_t(row) * cols + c] = exp(xr[c] - row_max) * inv;
