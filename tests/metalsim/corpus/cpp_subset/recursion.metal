// expect: header line 3: recursive call: 'twice_by_steps' calls itself; Metal has no recursion
inline float twice_by_steps(float x, int steps) {
  return steps == 0 ? x : twice_by_steps(x, steps - 1) + 0 * x;
}
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2 * twice_by_steps(a[i], 3);
