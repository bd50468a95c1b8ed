// expect: body line 2: argument 1 of 'twice_first' ('a + i') points to device memory but its parameter 'x' points to thread memory
inline float twice_first(const float* x) { return 2 * x[0]; }
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = twice_first(a + i);
