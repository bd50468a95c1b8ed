// BUG (by Metal's memory model): every thread of a threadgroup writes the same value to one element.
out[threadgroup_position_in_grid.x] = 1.0f;
