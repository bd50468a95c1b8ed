// OK: every thread of a threadgroup stores the same value to one element (the result of a reduction, unguarded):
// the element holds that value whichever store lands last.
out[threadgroup_position_in_grid.x] = 1.0f;
