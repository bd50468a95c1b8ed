// expect: header line 2: thread_local is not supported in Metal
thread_local float scratch;
// --- body ---
uint i = thread_position_in_grid.x;
scratch = 2 * a[i];
o[i] = scratch;
