// BUG: every thread stores its own value to one threadgroup variable: which one stays depends on the order.
threadgroup float tg_max;
uint lid = thread_position_in_threadgroup.x;
tg_max = a[lid];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = tg_max;
