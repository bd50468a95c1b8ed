// Within one SIMD group, simdgroup_barrier orders threadgroup memory accesses.
threadgroup float tile[32];
uint lid = thread_position_in_threadgroup.x;
tile[lid] = a[lid];
simdgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = tile[(lid + 1) % 32];
