// expect: body line 2: call to 'pow' is ambiguous
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = a[i] * pow(2, 1);
