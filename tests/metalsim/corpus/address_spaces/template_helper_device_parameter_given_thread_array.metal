// expect: body line 3: argument 1 of 'store_scaled' ('copy') points to thread memory but its parameter 'y' points to device memory
// A function template's parameter written with a space keeps it: explicit template arguments deduce nothing into it.
template <int K> inline void store_scaled(device float* y, float v) { y[0] = K * v; }
// --- body ---
uint i = thread_position_in_grid.x;
float copy[1];
store_scaled<2>(copy, a[i]);
o[i] = 2 * a[i];
