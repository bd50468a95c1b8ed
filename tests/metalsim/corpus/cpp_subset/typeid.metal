// expect: body line 2: typeid is not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = typeid(a[i]) == typeid(float) ? 2 * a[i] : 0;
