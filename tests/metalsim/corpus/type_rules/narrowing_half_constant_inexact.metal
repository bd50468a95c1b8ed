// expect: body line 3: constant expression cannot be narrowed to type 'half'
// An integer constant narrows to half unless half holds it exactly: 2049 needs 12 significant bits, half has 11
// (2048 and 4096 fit).
// --- body ---
uint i = thread_position_in_grid.x;
half steps[3] = {2048, 4096,
                 2049};
o[i] = a[i] * float(steps[0]);
