// BUG: a pointer shared through threadgroup memory (as an address) that no thread stored, read through.
threadgroup ulong source_address[1];
uint lid = thread_position_in_threadgroup.x;
threadgroup_barrier(mem_flags::mem_threadgroup);
const device float* source = (const device float*)source_address[0];
out[lid] = source[lid];
