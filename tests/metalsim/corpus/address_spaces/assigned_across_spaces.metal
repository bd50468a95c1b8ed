// expect: body line 4: 'cursor' points to thread memory but is assigned 'o + i', which points to device memory
// --- body ---
uint i = thread_position_in_grid.x;
float scratch[1];
float* cursor = scratch;
cursor = o + i;
*cursor = 2 * a[i];
