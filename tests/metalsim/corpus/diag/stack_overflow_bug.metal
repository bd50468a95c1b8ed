// BUG: a 1 MiB private array per thread; a barrier makes threads fibers with 128 KiB stacks.
uint i = thread_position_in_grid.x;
float big[262144];
for (uint k = 0; k < 262144u; ++k) big[k] = a[(i + k) % 64u];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = big[uint(a[i]) * 4001u % 262144u];
