// Correct: every thread reads and rewrites its own element, reads the shared a[0] (read by every
// threadgroup) and reads a neighbour's element only after a device barrier.
uint i = thread_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
uint base = i - lid;
out[i] = a[i];
out[i] = out[i] + a[0];
threadgroup_barrier(mem_flags::mem_device);
float next = out[base + (lid + 1) % threads_per_threadgroup.x];
threadgroup_barrier(mem_flags::mem_device);
out[i] = out[i] + next;
