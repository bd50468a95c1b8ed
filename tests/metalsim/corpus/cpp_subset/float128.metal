// expect: header line 3: __float128 is not supported in Metal
// A helper in a wider floating type than Metal has (its widest is float; double is refused as well).
inline float twice(float x) { __float128 wide = x; return float(wide * 2); }
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = twice(a[i]);
