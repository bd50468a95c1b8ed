threadgroup float tile[64];
uint lid = thread_position_in_threadgroup.x;
if (lid < 32) {
  tile[lid] = a[lid];
} else {
  tile[lid] = -a[lid];
}
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = tile[63 - lid];
