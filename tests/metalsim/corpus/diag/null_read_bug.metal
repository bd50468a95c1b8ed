// BUG: a read through a null pointer: an offset table whose base comes out as 0 (a[0] is 1).
uint i = thread_position_in_grid.x;
const device float* bias = (const device float*)(ulong(a[0]) - 1ul);
out[i] = a[i] + bias[i];
