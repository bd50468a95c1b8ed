// expect: body line 3: 'atomic_fetch_max_explicit' is unavailable: Metal has no atomic_fetch_max_explicit for atomic<float>
// Metal's atomic min and max take int and uint only (MLX emulates float ones with compare-exchange).
// --- body ---
uint i = thread_position_in_grid.x;
device atomic_float* m = (device atomic_float*)o;
atomic_fetch_max_explicit(m, a[i], memory_order_relaxed);
