// expect: body line 4: cannot convert between vector values
// Metal converts no vector type to another implicitly: int4 * uint4 needs a cast (clang's default would convert).
// --- body ---
uint i = thread_position_in_grid.x;
int4 k = int4(int(a[i]));
uint4 u = uint4(2u);
int4 c = k * u;
o[i] = float(c.x);
