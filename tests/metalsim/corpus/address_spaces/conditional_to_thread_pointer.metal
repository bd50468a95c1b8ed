// expect: body line 3: 'row' points to thread memory (declared without an address space) but 'i < 8 ? tile : tile + 8' points to threadgroup memory
// --- body ---
uint i = thread_position_in_grid.x;
threadgroup float tile[16];
float* row = i < 8 ? tile : tile + 8;
row[i % 8] = a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
o[i] = 2 * tile[i];
