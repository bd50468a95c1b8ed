// expect: body line 2: non-constant-expression cannot be narrowed from type 'uint' to 'bfloat'
// An integer value narrows to bfloat (and half) in braces, direct-list-initialization too.
// --- body ---
uint i = thread_position_in_grid.x;
bfloat b{i};
o[i] = a[i] * float(b);
