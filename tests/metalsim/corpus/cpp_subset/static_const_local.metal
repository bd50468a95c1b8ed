// expect: header line 3: a static local variable must reside in the constant address space in Metal ('table')
inline float weight(uint i) {
  static const float table[2] = {2.0f, 2.0f};
  return table[i & 1];
}
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = weight(i) * a[i];
