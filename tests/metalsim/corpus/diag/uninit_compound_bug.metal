// BUG: the partial sums are accumulated into a threadgroup array that nothing zeroed first.
threadgroup float sums[64];
uint i = thread_position_in_threadgroup.x;
sums[i] += a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = sums[63 - i];
