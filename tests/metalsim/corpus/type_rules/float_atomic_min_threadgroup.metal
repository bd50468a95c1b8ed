// expect: body line 5: 'atomic_fetch_min_explicit' is unavailable: Metal has no atomic_fetch_min_explicit for atomic<float>
// Metal's atomic min and max take int and uint only (MLX emulates float ones with compare-exchange).
// --- body ---
threadgroup atomic_float m;
uint i = thread_position_in_grid.x;
if (i == 0) atomic_store_explicit(&m, INFINITY, memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
atomic_fetch_min_explicit(&m, a[i], memory_order_relaxed);
threadgroup_barrier(mem_flags::mem_threadgroup);
o[i] = atomic_load_explicit(&m, memory_order_relaxed);
