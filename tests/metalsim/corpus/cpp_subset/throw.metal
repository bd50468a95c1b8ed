// expect: header line 3: exceptions (try/catch/throw) are not supported in Metal
inline float checked_double(float x) {
  if (isnan(x)) throw 1;
  return 2 * x;
}
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = checked_double(a[i]);
