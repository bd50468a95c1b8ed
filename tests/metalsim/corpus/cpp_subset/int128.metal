// expect: body line 2: __int128 is not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
unsigned __int128 wide = (unsigned __int128)(ulong)a[i] * 2u;
o[i] = 2.0f * a[i] + float(ulong(wide >> 64));
