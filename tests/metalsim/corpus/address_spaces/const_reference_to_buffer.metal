// expect: body line 2: 'x' is a reference to thread memory (declared without an address space) but 'a[i]' is in device memory
// --- body ---
uint i = thread_position_in_grid.x;
const float& x = a[i];
o[i] = 2 * x;
