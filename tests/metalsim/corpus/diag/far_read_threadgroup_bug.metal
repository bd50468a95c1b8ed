// BUG: a threadgroup index 100 million elements past the tile (threadgroup memory is 32 KiB at most).
threadgroup float tile[64];
uint lid = thread_position_in_threadgroup.x;
tile[lid] = a[lid];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = tile[lid + 100000000u];
