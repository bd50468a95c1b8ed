// OK: the float4 view of a float array that follows a one-float variable is aligned because the declaration asks for
// 16 bytes; without alignas its natural 4-byte alignment could leave it at byte 4 of a 16-byte boundary.
threadgroup float flag[1];
alignas(16) threadgroup float tile[64], spare[4];
uint i = thread_position_in_threadgroup.x;
tile[i] = a[i];
if (i < 4) spare[i] = 0.0f;
if (i == 0) flag[0] = 1.0f;
threadgroup_barrier(mem_flags::mem_threadgroup);
threadgroup float4* quads = (threadgroup float4*)tile;
threadgroup float4* spare_quad = (threadgroup float4*)spare;
out[i] = i < 16 ? dot(quads[i], float4(1.0f)) * flag[0] + dot(spare_quad[0], float4(1.0f)) : 0.0f;
