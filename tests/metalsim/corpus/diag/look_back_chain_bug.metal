// BUG: a look-back chain. Threadgroup k waits for threadgroup k-1 to raise its flag (out[k-1], a relaxed atomic),
// then raises its own. Metal guarantees no forward progress between threadgroups; each wait is reported, but as
// long as the threadgroup waited for runs on another worker the chain completes: no deadlock while any flag waited
// for is already raised, however the host schedules the workers.
uint group = threadgroup_position_in_grid.x;
device atomic_uint* flags = (device atomic_uint*)out;
if (group > 0)
  while (atomic_load_explicit(&flags[group - 1], memory_order_relaxed) == 0u) {
  }
atomic_store_explicit(&flags[group], 1u, memory_order_relaxed);
