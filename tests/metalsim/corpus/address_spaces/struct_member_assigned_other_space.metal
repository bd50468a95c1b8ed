// expect: body line 4: member 'in' of 'Views' points to device memory but is assigned '(kOnes)', which points to constant memory
struct Views { const device float* in; uint n; };
constant float kOnes[2] = {1.0f, 1.0f};
// --- body ---
uint i = thread_position_in_grid.x;
Views v;
v.in = a;
v.in = (kOnes);
o[i] = 2 * a[i];
