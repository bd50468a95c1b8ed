// expect: body line 3: member 'scratch' of 'Views' points to device memory but 'local' points to thread memory
struct Views { const device float* in; device float* scratch; uint n; };
// --- body ---
uint i = thread_position_in_grid.x;
float local[1];
Views v{a, local, 16};
o[i] = 2 * v.in[i];
