// BUG: the divisor comes from the scalar input n (64 here), minus 64: an integer division by zero.
uint i = thread_position_in_grid.x;
uint d = n - 64u;
out[i] = float(i / d);
