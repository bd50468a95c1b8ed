// expect: header line 2: 't' is a program-scope variable outside the constant address space
int t = 0;
// --- body ---
uint i = thread_position_in_grid.x;
t += 1;
o[i] = 2 * a[i];
