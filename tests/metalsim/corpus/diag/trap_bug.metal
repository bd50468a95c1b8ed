// BUG: a trap instruction (the host compiler's builtin, which Metal lacks), reached by thread 5.
uint i = thread_position_in_grid.x;
if (i == 5u) __builtin_trap();
out[i] = a[i];
