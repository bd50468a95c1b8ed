// Threadgroup memory tree reduction with barriers; 2-D grid of rows.
threadgroup float partial[256];
uint lid = thread_position_in_threadgroup.x;
uint row = threadgroup_position_in_grid.y;
uint tgs = threads_per_threadgroup.x;
float acc = 0.0f;
for (uint j = lid; j < cols; j += tgs) acc += a[row * cols + j];
partial[lid] = acc;
threadgroup_barrier(mem_flags::mem_threadgroup);
for (uint s = tgs / 2; s > 0; s >>= 1) {
  if (lid < s) partial[lid] += partial[lid + s];
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
if (lid == 0) out[row] = partial[0];
