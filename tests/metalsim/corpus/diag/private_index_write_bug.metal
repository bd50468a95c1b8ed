// BUG: writes one element before a private array (index n - 65 = -1), in a kernel with a barrier (threads on fibers).
threadgroup float tile[64];
uint i = thread_position_in_grid.x;
float acc[4] = {a[i], a[i], a[i], a[i]};
acc[int(n) - 65] = 0.0f;
tile[i] = acc[0] + acc[3];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = tile[63 - i];
