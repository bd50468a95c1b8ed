// BUG: reads one element past a private array (the index comes from the scalar input n = 64, minus 60).
uint i = thread_position_in_grid.x;
float acc[4];
for (int k = 0; k < 4; ++k) acc[k] = a[i] * float(k);
out[i] = acc[int(n) - 60];
