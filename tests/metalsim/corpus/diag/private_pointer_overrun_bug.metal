// BUG: writes past a private array through a pointer into it (n - 62 = 2 elements past its end): no array type
// bounds the pointer's index, the local-bounds check traps at the store.
uint i = thread_position_in_grid.x;
float acc[4];
for (int k = 0; k < 4; ++k) acc[k] = a[i] * float(k);
thread float* p = acc;
for (int k = 0; k < int(n) - 62; ++k) p[4 + k] = 1.0f;
out[i] = acc[0] + acc[3];
