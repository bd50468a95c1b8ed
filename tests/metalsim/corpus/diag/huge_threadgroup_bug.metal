// BUG: a 4 GiB threadgroup array (Metal allows 32 KiB of threadgroup memory).
threadgroup float huge[1073741824];
uint lid = thread_position_in_threadgroup.x;
huge[lid] = a[lid];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = huge[(lid + 1) % 64u];
