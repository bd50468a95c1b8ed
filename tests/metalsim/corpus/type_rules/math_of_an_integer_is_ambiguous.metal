// expect: body line 3: call to 'rsqrt' is ambiguous
// Metal's rsqrt has float, half and bfloat overloads, all built-in types: an int converts to each equally well.
// --- body ---
uint i = thread_position_in_grid.x;
int n = 4;
o[i] = 2.0f * a[i] * rsqrt(n) * 2.0f;
