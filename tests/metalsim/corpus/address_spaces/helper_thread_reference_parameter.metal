// expect: body line 2: argument 1 of 'set_twice' ('o[i]') is in device memory but its parameter 'y' is a reference to thread memory
inline void set_twice(thread float& y, float v) { y = 2 * v; }
// --- body ---
uint i = thread_position_in_grid.x;
set_twice(o[i], a[i]);
