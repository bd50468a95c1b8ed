// expect: body line 2: 'out' is a reference to thread memory (declared without an address space) but 'o[i]' is in device memory
// --- body ---
uint i = thread_position_in_grid.x;
float& out = o[i];
out = 2 * a[i];
