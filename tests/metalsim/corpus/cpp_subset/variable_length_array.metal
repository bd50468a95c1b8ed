// expect: body line 3: variable length arrays are not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
uint n = i % 4 + 1;
float scratch[n];
scratch[0] = 2 * a[i];
o[i] = scratch[0];
