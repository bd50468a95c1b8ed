// BUG: every thread counts itself into a threadgroup atomic that nobody stored a zero into.
threadgroup atomic_uint count;
uint i = thread_position_in_threadgroup.x;
atomic_fetch_add_explicit(&count, 1u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = float(atomic_load_explicit(&count, memory_order_relaxed)) + a[i];
