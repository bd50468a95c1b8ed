// BUG: threads past the end return before the barrier the others wait at.
threadgroup float tile[64];
uint i = thread_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
if (i >= n) return;
tile[lid] = a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = tile[63 - lid];
