// expect: header line 3: virtual functions are not supported in Metal
struct Doubler {
  virtual float apply(float x) const { return 2 * x; }
};
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = Doubler().apply(a[i]);
