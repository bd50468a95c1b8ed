// BUG: every thread reads `v`, then thread 0 overwrites it with no barrier between: threads of the other SIMD
// group may read either value. (Thread 0 read `v` first: the race is with a later reader.)
threadgroup float v;
uint lid = thread_position_in_threadgroup.x;
if (lid == 0) v = a[0];
threadgroup_barrier(mem_flags::mem_threadgroup);
float r = simd_sum(v);
if (lid == 0) v = 0.0f;
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = r;
