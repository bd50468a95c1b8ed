// expect: body line 2: non-constant-expression cannot be narrowed from type 'int' to 'float'
// An int value in a float vector's braces narrows (float4(k) and float(k) convert; the braces do not).
// --- body ---
int k = int(thread_position_in_grid.x);
float4 v = {a[k], k, 0.0f, 1.0f};
o[k] = v.x + v.y;
