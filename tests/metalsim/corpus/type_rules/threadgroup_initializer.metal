// expect: body line 1: a threadgroup variable cannot have an initializer in Metal ('total')
// Threadgroup memory is shared by the threadgroup's threads and starts undefined: Metal initializes none of it.
// --- body ---
threadgroup float total = 0.0f;
uint i = thread_position_in_grid.x;
threadgroup_barrier(mem_flags::mem_threadgroup);
o[i] = 2 * a[i] + total;
