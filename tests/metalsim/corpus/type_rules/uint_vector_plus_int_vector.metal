// expect: body line 4: cannot convert between vector values
// Metal converts no vector type to another implicitly: uint4 + int4 needs a cast.
// --- body ---
uint i = thread_position_in_grid.x;
uint4 u = uint4(i);
int4 s = int4(-1);
uint4 r = u + s;
o[i] = float(r.x);
