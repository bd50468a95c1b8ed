// BUG: reads a neighbour's slot with no barrier after the writes.
threadgroup float tile[64];
uint lid = thread_position_in_threadgroup.x;
tile[lid] = a[lid];
out[lid] = tile[(lid + 1) % 64];
