// BUG: thread 0 reads the element before the tile (index -1).
threadgroup float tile[64];
uint i = thread_position_in_threadgroup.x;
tile[i] = a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
int left = int(i) - 1;
out[i] = tile[i] - tile[left];
