// expect: body line 3: non-constant-expression cannot be narrowed from type
// A brace initializer refuses a narrowing conversion of a value that is not a constant (C++ list-initialization,
// an error on a Mac): uint components to an int2 need int(...) each.
// --- body ---
uint2 g = thread_position_in_grid.xy;
float scale = a[g.x];
int2 c = {g.x, g.y};
o[g.x] = scale * float(c.x + c.y);
