// expect: body line 4: 'ptrs[1]' points to thread memory but is assigned 'a', which points to device memory
// --- body ---
uint i = thread_position_in_grid.x;
const float* ptrs[2];
ptrs[0] = a;
ptrs[1] = a;
o[i] = ptrs[0][i] + ptrs[1][i];
