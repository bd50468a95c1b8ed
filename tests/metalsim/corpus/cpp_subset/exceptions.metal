// expect: body line 2: exceptions (try/catch/throw) are not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
try {
  o[i] = 2 * a[i];
} catch (...) {
}
