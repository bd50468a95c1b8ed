// BUG: after a barrier, float4 reads from a threadgroup tile at an odd element offset.
threadgroup float tile[68];
uint i = thread_position_in_threadgroup.x;
tile[i] = a[i];
if (i < 4) tile[64 + i] = 0.0f;
threadgroup_barrier(mem_flags::mem_threadgroup);
threadgroup float4* quads = (threadgroup float4*)(tile + 2);
out[i] = i < 16 ? dot(quads[i], float4(1.0f)) : 0.0f;
