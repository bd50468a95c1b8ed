// expect: body line 3: function pointers are not supported in Metal kernels
// --- body ---
uint i = thread_position_in_grid.x;
float (*op)(float) = nullptr;
o[i] = op ? (*op)(a[i]) : 2 * a[i];
