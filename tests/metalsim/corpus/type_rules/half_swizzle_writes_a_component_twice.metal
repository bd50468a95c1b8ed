// expect: body line 3: vector is not assignable (contains duplicate components)
// A swizzle written to names each component once, for half vectors as for float ones.
// --- body ---
uint i = thread_position_in_grid.x;
half4 v = half4(a[i]);
v.xx = half2(1.0h, 2.0h);
o[i] = float(v.x);
