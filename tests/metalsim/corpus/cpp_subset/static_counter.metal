// expect: header line 2: 'count' is a static variable of 'calls' outside the constant address space
inline int calls() { static int count = 0; return count++; }
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2 * a[i] + 0 * calls();
