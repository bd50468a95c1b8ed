// expect: body line 3: non-constant-expression cannot be narrowed from type 'float' to 'half'
// A half vector's braces narrow float values too; half2(x, y) converts.
// --- body ---
uint i = thread_position_in_grid.x;
float x = a[i];
half2 h = {x, x};
o[i] = float(h.x);
