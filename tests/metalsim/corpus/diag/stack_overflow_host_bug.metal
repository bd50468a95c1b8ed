// BUG: a 64 MiB private array, past even a host thread's stack (no barrier: threads run without fibers).
uint i = thread_position_in_grid.x;
float big[16777216];
for (uint k = 0; k < 16777216u; k += 4096u) big[k] = a[(i + k) % 64u];
out[i] = big[uint(a[i]) * 4096u % 16777216u];
