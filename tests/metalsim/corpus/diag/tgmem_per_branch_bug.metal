// BUG: two branches with a threadgroup array each, 16 KiB + 20 KiB. A threadgroup reaches one of them, but Metal's
// compiler gives each its own memory: 36 KiB, past the 32 KiB limit (the pipeline cannot be created).
uint lid = thread_position_in_threadgroup.x;
if (a[0] > 0.0f) {
  threadgroup float small_tile[4096];
  small_tile[lid] = a[lid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[lid] = small_tile[63 - lid];
} else {
  threadgroup float large_tile[5120];
  large_tile[lid] = a[lid];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  out[lid] = large_tile[63 - lid];
}
