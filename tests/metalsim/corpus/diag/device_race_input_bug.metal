// BUG: threadgroup 0 writes into the input `a` (casting const away) where threadgroup 1 reads.
uint i = thread_position_in_grid.x;
device float* scratch = (device float*)a;
if (threadgroup_position_in_grid.x == 0) scratch[32 + thread_position_in_threadgroup.x] = 0.0f;
out[i] = a[i];
