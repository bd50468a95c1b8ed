// expect: header line 2: 'seen' is a program-scope variable outside the constant address space
int seen = 0;
// --- body ---
uint i = thread_position_in_grid.x;
seen += 1;
o[i] = 2 * a[i];
