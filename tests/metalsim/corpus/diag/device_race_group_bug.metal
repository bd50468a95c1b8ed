// BUG: reads a neighbour's element of `out` with no barrier after the writes.
uint lid = thread_position_in_threadgroup.x;
out[lid] = a[lid];
float next = out[(lid + 1) % 64];
out[lid] = out[lid] + next;
