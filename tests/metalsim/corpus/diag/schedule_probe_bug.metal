// BUG: tells the emulator's schedule from a GPU's: each thread adds 1 to a threadgroup counter after a barrier and
// reads it back. Run one thread at a time, lane 0 finds 1; in lockstep (a GPU's SIMD group), or last, it finds 64.
threadgroup atomic_uint count;
uint lid = thread_position_in_threadgroup.x;
if (lid == 0) atomic_store_explicit(&count, 0u, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
atomic_fetch_add_explicit(&count, 1u, memory_order_relaxed);
out[lid] = float(atomic_load_explicit(&count, memory_order_relaxed));
