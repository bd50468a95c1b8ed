// OK: every thread stores the same flag and the same maximum to threadgroup memory, unguarded, and reads the
// maximum back before the barrier: whatever the order of these stores, every load finds the same value.
threadgroup uint ready;
threadgroup float tg_max;
uint lid = thread_position_in_threadgroup.x;
float m = max(a[0], a[63]);
ready = 1u;
tg_max = m;
float own = tg_max;
float r = simd_sum(own);
tg_max = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
out[lid] = ready == 1u ? tg_max + r : 0.0f;
