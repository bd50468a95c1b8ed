// Correct: the threads of every threadgroup add into the same four elements, atomically.
uint i = thread_position_in_grid.x;
atomic_fetch_add_explicit(&out[i % 4], a[i], memory_order_relaxed);
