// BUG: the loop's condition never changes: a thread spins forever without touching memory.
uint i = thread_position_in_grid.x;
uint k = 0;
while (n > 0u) k += i;
out[i] = float(k);
