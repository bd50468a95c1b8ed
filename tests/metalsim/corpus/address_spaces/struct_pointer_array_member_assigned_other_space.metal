// expect: body line 3: member 'in' of 'TensorPack' points to thread memory but is assigned '(a)', which points to device memory
// A struct's array of thread pointers filled with buffers element by element, as a CUDA pointer pack is translated.
struct TensorPack { const float* in[2]; device float* out; };
// --- body ---
uint i = thread_position_in_grid.x;
TensorPack pack;
pack.in[0] = (a); pack.in[1] = (a); pack.out = (o);
pack.out[i] = pack.in[0][i] + pack.in[1][i];
