// expect: body line 1: a threadgroup variable cannot have an initializer in Metal ('scale')
// --- body ---
threadgroup float scale[2]{2.0f, 2.0f};
uint i = thread_position_in_grid.x;
o[i] = scale[i % 2] * a[i];
