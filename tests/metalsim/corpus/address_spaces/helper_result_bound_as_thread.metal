// expect: body line 2: 's' is a reference to thread memory (declared without an address space) but 'slot(o, i)' is in device memory
inline device float& slot(device float* y, uint k) { return y[k]; }
// --- body ---
uint i = thread_position_in_grid.x;
float& s = slot(o, i);
s = 2 * a[i];
