// expect: body line 2: 'half' is a type in Metal
// --- body ---
uint i = thread_position_in_grid.x;
const int half = 8;
o[i] = 2 * a[i] + float(half - 8);
