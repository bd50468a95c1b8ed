// BUG: the first SIMD group stores a flag (all the same value) and the second reads it with no barrier between:
// the readers stored nothing and may find the flag before or after the store.
threadgroup uint ready;
uint lid = thread_position_in_threadgroup.x;
if (lid == 0) ready = 0u;
threadgroup_barrier(mem_flags::mem_threadgroup);
if (lid < 32) ready = 1u;
else out[lid] = float(ready);
