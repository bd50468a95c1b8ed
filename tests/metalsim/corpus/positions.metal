// Thread attributes on a 3-D grid with partial edge threadgroups.
uint3 g = thread_position_in_grid;
uint idx = (g.z * threads_per_grid.y + g.y) * threads_per_grid.x + g.x;
device uint* o = out + idx * 8;
o[0] = thread_position_in_threadgroup.x + 100u * thread_position_in_threadgroup.y + 10000u * thread_position_in_threadgroup.z;
o[1] = threadgroup_position_in_grid.x + 100u * threadgroup_position_in_grid.y + 10000u * threadgroup_position_in_grid.z;
o[2] = threads_per_threadgroup.x + 100u * threads_per_threadgroup.y + 10000u * threads_per_threadgroup.z;
o[3] = threadgroups_per_grid.x + 100u * threadgroups_per_grid.y + 10000u * threadgroups_per_grid.z;
o[4] = thread_index_in_threadgroup;
o[5] = simdgroup_index_in_threadgroup * 1000u + thread_index_in_simdgroup;
o[6] = threads_per_simdgroup + dispatch_threads_per_threadgroup.x * 100u;
o[7] = quadgroup_index_in_threadgroup * 10u + thread_index_in_quadgroup;
