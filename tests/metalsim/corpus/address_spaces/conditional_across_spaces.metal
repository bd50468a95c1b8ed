// expect: body line 3: the operands of '?:' point to different address spaces: 'tile' to threadgroup memory, 'o' to device memory
// A conditional's two pointers must point to one address space; the host compiler, which sees none, would pick one.
// --- body ---
uint i = thread_position_in_grid.x;
threadgroup float tile[16];
auto p = i < 8 ? tile : o;
p[i] = 2 * a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
o[i] = tile[i];
