// BUG: the threads wait for thread 0 to raise a threadgroup flag, with no barrier: nothing makes that thread run
// while the others spin (here thread 63, the last to reach the barrier, goes on first and waits).
threadgroup atomic_uint ready;
uint lid = thread_position_in_threadgroup.x;
if (lid == 0) atomic_store_explicit(&ready, 0u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
if (lid == 0) atomic_store_explicit(&ready, 1u, memory_order_relaxed);
while (atomic_load_explicit(&ready, memory_order_relaxed) == 0u) {
}
out[lid] = a[lid];
