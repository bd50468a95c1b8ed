// BUG, the "last threadgroup" pattern: each group publishes its partial sum in out[1 + group] and counts
// itself on a relaxed atomic counter (out[0]); the group that counts last adds the partials. A relaxed
// atomic publishes no other memory and a barrier orders one threadgroup only: the last group's reads of
// the other groups' partials race with their writes.
threadgroup float partial[16];
threadgroup bool last;
uint lid = thread_position_in_threadgroup.x;
uint group = threadgroup_position_in_grid.x;
uint groups = threadgroups_per_grid.x;
partial[lid] = a[thread_position_in_grid.x];
threadgroup_barrier(mem_flags::mem_threadgroup);
if (lid == 0) {
  float s = 0.0f;
  for (uint k = 0; k < 16; ++k) s += partial[k];
  out[1 + group] = s;
  device atomic_uint* counter = (device atomic_uint*)&out[0];
  last = atomic_fetch_add_explicit(counter, 1u, memory_order_relaxed) == groups - 1;
}
threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
if (lid == 0 && last) {
  float total = 0.0f;
  for (uint k = 0; k < groups; ++k) total += out[1 + k];
  out[1 + groups] = total;
}
