// BUG: the barrier orders threadgroup memory only; the neighbour's element of `out` is device memory.
uint lid = thread_position_in_threadgroup.x;
out[lid] = a[lid];
threadgroup_barrier(mem_flags::mem_threadgroup);
float next = out[(lid + 1) % 64];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = out[lid] + next;
