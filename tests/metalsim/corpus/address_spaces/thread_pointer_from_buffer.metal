// expect: body line 2: 'row' points to thread memory (declared without an address space) but 'a + i' points to device memory
// --- body ---
uint i = thread_position_in_grid.x;
const float* row = a + i;
o[i] = 2 * row[0];
