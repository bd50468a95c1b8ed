threadgroup float tile[64];
uint i = thread_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
tile[lid] = i < n ? a[i] : 0.0f;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (i < n) out[i] = tile[63 - lid];
