// Reads that lie outside the buffers and are legitimate: a program-scope constant table, string-like literal data,
// a private array on the thread's stack, threadgroup memory, the thread's attributes.
constant float kScale[4] = {1.0f, 2.0f, 3.0f, 4.0f};
constant uint kOrder[8] = {7, 6, 5, 4, 3, 2, 1, 0};
threadgroup float tile[64];
uint i = thread_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
float local[16];
for (uint k = 0; k < 16; ++k) local[k] = a[(i + k) % 64];
tile[lid] = local[(i * 5) % 16];
threadgroup_barrier(mem_flags::mem_threadgroup);
float4 v = float4(tile[(lid + 1) % 64], tile[lid], local[kOrder[i % 8]], kScale[i % 4]);
out[i] = v.x + v.y + v.z * v.w;
