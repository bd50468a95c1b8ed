uint i = thread_position_in_grid.x;
float local[2] = {a[i], 1.0f};
out[i] = first(a + i) + first(local);
