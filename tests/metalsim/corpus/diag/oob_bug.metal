// BUG: no bounds check; the grid is rounded up past the end of the buffers.
uint i = thread_position_in_grid.x;
out[i] = a[i] * 2.0f;
