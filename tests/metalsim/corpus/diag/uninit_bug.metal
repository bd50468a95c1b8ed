// BUG: only 63 of the 64 slots are written, thread 62 reads slot 63.
threadgroup float tile[64];
uint lid = thread_position_in_threadgroup.x;
if (lid < 63) tile[lid] = a[lid];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = tile[(lid + 1) % 64];
