// BUG: a pointer built from an integer (an address computed by hand) read far from every buffer.
uint i = thread_position_in_grid.x;
ulong address = (ulong)a + (1ul << 40);
const device float* p = (const device float*)address;
out[i] = p[i];
