// expect: body line 3: 'ptrs' holds pointers to thread memory (declared without an address space) but is given 'a + i', which points to device memory
// --- body ---
uint i = thread_position_in_grid.x;
float local = a[i];
const float* ptrs[2][1] = {{&local}, {a + i}};
o[i] = ptrs[0][0][0] + ptrs[1][0][0];
