// BUG: an atomic load 100 million elements past the output.
uint i = thread_position_in_grid.x;
device atomic_uint* counters = (device atomic_uint*)out;
uint seen = atomic_load_explicit(&counters[i + 100000000u], memory_order_relaxed);
out[i] = float(seen);
