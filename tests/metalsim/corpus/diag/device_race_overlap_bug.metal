// BUG: both threadgroups write out[0..31] (the index wraps at the threadgroup size).
uint i = thread_position_in_grid.x;
out[i % 32] = a[i];
