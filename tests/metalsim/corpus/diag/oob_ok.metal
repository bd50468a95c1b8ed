uint i = thread_position_in_grid.x;
if (i < n) out[i] = a[i] * 2.0f;
