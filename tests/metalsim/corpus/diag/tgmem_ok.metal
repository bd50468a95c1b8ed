threadgroup float scratch[8000];
uint lid = thread_position_in_threadgroup.x;
for (uint j = lid; j < 8000; j += 64) scratch[j] = float(j);
threadgroup_barrier(mem_flags::mem_threadgroup);
out[thread_position_in_grid.x] = scratch[(lid * 97) % 8000];
