// BUG: threadgroup 0 waits for the last threadgroup to raise a flag (out[0], a relaxed atomic). Metal guarantees
// no forward progress between threadgroups: the last one may not start until threadgroup 0 has finished.
uint group = threadgroup_position_in_grid.x;
device atomic_uint* flag = (device atomic_uint*)&out[0];
if (group == threadgroups_per_grid.x - 1 && thread_index_in_threadgroup == 0)
  atomic_store_explicit(flag, 1u, memory_order_relaxed);
if (group == 0)
  while (atomic_load_explicit(flag, memory_order_relaxed) == 0u) {
  }
