// BUG: each thread takes its input element with an atomic exchange, leaving 0 in the caller's array.
uint i = thread_position_in_grid.x;
device atomic_float* cells = (device atomic_float*)a;
out[i] = atomic_exchange_explicit(&cells[i], 0.0f, memory_order_relaxed);
