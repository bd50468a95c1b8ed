// expect: header line 3: a static data member must reside in the constant address space in Metal ('factor')
struct Scale {
  static constexpr float factor = 2.0f;
};
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = Scale::factor * a[i];
