// expect: body line 3: argument 1 of 'store_twice' ('copy') points to thread memory but its parameter 'y' points to device memory
inline void store_twice(device float* y, float v) { y[0] = 2 * v; }
// --- body ---
uint i = thread_position_in_grid.x;
float copy[1];
store_twice(copy, a[i]);
o[i] = 2 * a[i];
