// expect: body line 3: 'out' points to device memory but '&partial[0]' points to thread memory
// --- body ---
uint i = thread_position_in_grid.x;
float partial[2] = {2 * a[i], 0};
device float* out = &partial[0];
o[i] = out[0];
