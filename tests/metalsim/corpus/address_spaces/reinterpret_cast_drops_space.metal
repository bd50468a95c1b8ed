// expect: body line 2: the cast to 'const float2*' makes a pointer to thread memory of 'a + (i & ~1u)', which points to device memory
// --- body ---
uint i = thread_position_in_grid.x;
auto pair = reinterpret_cast<const float2*>(a + (i & ~1u));
o[i] = 2 * (*pair)[i & 1u];
