threadgroup float tile[64];
uint lid = thread_position_in_threadgroup.x;
tile[lid] = a[lid];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = tile[(lid + 1) % 64];
