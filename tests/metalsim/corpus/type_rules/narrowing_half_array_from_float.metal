// expect: body line 2: non-constant-expression cannot be narrowed from type 'float' to 'half'
// half is a built-in floating type on a Mac: a float value in a half array's braces narrows (the constant fits).
// --- body ---
uint i = thread_position_in_grid.x;
half pair[2] = {1.0f, a[i]};
o[i] = float(pair[1]);
