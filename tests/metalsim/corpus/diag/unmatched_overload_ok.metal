uint i = thread_position_in_grid.x;
threadgroup float tile[64];
tile[i] = 2.0f * a[i];
threadgroup_barrier(mem_flags::mem_threadgroup);
out[i] = first(a + i) + first(&tile[i]);
