// expect: body line 2: the register storage class is not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
register float v = 2 * a[i];
o[i] = v;
