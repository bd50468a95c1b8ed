// expect: body line 2: excess elements in vector initialization
// A float3 is not made from a float4 (nor from four scalars).
// --- body ---
uint i = thread_position_in_grid.x;
float3 v = float3(float4(a[i]));
o[i] = v.x;
