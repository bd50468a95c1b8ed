// expect: header line 3: function pointers are not supported in Metal kernels
inline float twice(float x) { return 2 * x; }
constant float (*kOp)(float) = twice;
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = kOp(a[i]);
