// expect: header line 3: 't' points to thread memory (declared without an address space) but 'kScale' points to constant memory
constant float kScale[2] = {2.0f, 2.0f};
inline float scale(float x) { const float* t = kScale; return t[0] * x; }
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = scale(a[i]);
