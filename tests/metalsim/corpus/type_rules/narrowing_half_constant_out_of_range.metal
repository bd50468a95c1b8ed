// expect: header line 4: constant expression cannot be narrowed to type 'half'
// A float constant narrows to half when it rounds past half's largest value (65504); an inexact one that does not
// (0.1f) is allowed. Declarators after the first are checked too.
constant half kScale = {0.1f}, kBig{1.0e5f};
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = a[i] * float(kScale) * float(kBig);
