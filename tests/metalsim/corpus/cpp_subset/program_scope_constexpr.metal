// expect: header line 3: program scope variable must reside in constant address space ('kScale')
// A program-scope constant without `constant`: Metal keeps every variable of static storage there (MLX's MTL_CONST).
constexpr float kScale = 2.0f;
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = kScale * a[i];
