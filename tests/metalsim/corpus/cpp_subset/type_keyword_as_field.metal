// expect: header line 3: 'bfloat' is a type in Metal
struct Pair {
  float bfloat;
};
// --- body ---
uint i = thread_position_in_grid.x;
Pair p{2 * a[i]};
o[i] = p.bfloat;
