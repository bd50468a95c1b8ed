// expect: body line 2: the cast to 'const float4*' makes a pointer to thread memory of 'a', which points to device memory
// --- body ---
uint i = thread_position_in_grid.x;
const float4 v = ((const float4*)a)[i / 4];
o[i] = 2 * v[i % 4];
