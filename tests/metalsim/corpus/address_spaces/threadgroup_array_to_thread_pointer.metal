// expect: body line 5: 'staged' points to thread memory (declared without an address space) but 'tile + 1' points to threadgroup memory
// --- body ---
uint i = thread_position_in_grid.x;
threadgroup float tile[17];
tile[i + 1] = a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
float* staged = tile + 1;
o[i] = 2 * staged[i];
