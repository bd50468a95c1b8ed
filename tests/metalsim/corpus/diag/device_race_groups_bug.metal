// BUG: threadgroup 0 builds a table in `out` that threadgroup 1 reads. The device barrier orders the
// threads of one threadgroup only; nothing orders threadgroups, which a GPU runs concurrently.
uint lid = thread_position_in_threadgroup.x;
uint group = threadgroup_position_in_grid.x;
if (group == 0) out[lid] = a[lid] * 2.0f;
threadgroup_barrier(mem_flags::mem_device);
if (group == 1) out[32 + lid] = out[lid] + 1.0f;
