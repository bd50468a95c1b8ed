// expect: passes
inline void store_twice(thread float* dst, float v) { (*dst) = v; (*dst) *= (2.0f); }
// --- body ---
uint i = thread_position_in_grid.x;
float v;
thread float* p = &v;
store_twice(p, a[i]);
o[i] = (*p) * (1.0f);
