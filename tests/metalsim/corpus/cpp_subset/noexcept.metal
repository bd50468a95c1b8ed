// expect: header line 2: noexcept is not supported in Metal
inline float twice(float x) noexcept { return 2 * x; }
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = twice(a[i]);
