// expect: header line 2: 'row_start' returns a pointer to thread memory but 'x + r' points to device memory
inline const float* row_start(const device float* x, uint r) { return x + r; }
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2 * row_start(a, i)[0];
