// BUG: a barrier inside a loop whose trip count differs per thread.
threadgroup float acc[64];
uint lid = thread_position_in_threadgroup.x;
acc[lid] = 0.0f;
for (uint k = 0; k < lid % 3 + 1; ++k) {
  acc[lid] += a[lid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
out[lid] = acc[lid];
