// expect: body line 3: lambda expressions are not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
float scale = 2;
o[i] = [&] { return scale * a[i]; }();
