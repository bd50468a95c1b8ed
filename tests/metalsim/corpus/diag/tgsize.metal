uint i = thread_position_in_grid.x;
out[i] = a[i];
