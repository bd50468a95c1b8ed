// expect: body line 2: type 'float' cannot be narrowed to 'int'
// A float in an int array's braces narrows, a constant or not.
// --- body ---
uint i = thread_position_in_grid.x;
int parts[2] = {a[i], 0};
o[i] = float(parts[0]);
