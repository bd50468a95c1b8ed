// BUG: 9000 floats = 36000 bytes of threadgroup memory (> 32 KiB).
threadgroup float scratch[9000];
uint lid = thread_position_in_threadgroup.x;
for (uint j = lid; j < 9000; j += 64) scratch[j] = float(j);
threadgroup_barrier(mem_flags::mem_threadgroup);
out[thread_position_in_grid.x] = scratch[(lid * 97) % 9000];
