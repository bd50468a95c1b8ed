// expect: body line 2: new is not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
float* scratch = new float[1];
scratch[0] = 2 * a[i];
o[i] = scratch[0];
delete[] scratch;
