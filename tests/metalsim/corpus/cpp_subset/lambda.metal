// expect: body line 2: lambda expressions are not supported in Metal
// --- body ---
uint i = thread_position_in_grid.x;
auto twice = [](float x) { return 2 * x; };
o[i] = twice(a[i]);
