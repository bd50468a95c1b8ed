// expect: body line 2: member 'in' of 'TensorPack' points to thread memory but 'a + i' points to device memory
struct TensorPack { const float* in[2]; device float* out; };
// --- body ---
uint i = thread_position_in_grid.x;
TensorPack pack = {{a, a + i}, o};
pack.out[i] = pack.in[0][i] + pack.in[1][0];
