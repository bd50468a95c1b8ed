// expect: body line 2: too few elements in vector initialization
// A vector constructor takes one scalar or components that fill the vector; three for a float4 is refused.
// --- body ---
uint i = thread_position_in_grid.x;
float4 v = float4(a[i], 2.0f, 3.0f);
o[i] = v.x;
