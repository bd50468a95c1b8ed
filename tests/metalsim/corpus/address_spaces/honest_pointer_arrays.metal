// expect: passes
// Arrays of pointers filled from the space their pointers point to: a struct's device pointer array given buffers
// (assigned or in a brace list), a thread pointer array given addresses of local variables, local arrays of device,
// thread and threadgroup pointers. A brace list that gives an array member without its own braces (the elements
// take as many items as the array has) is not followed past it, nor the list of an array of structs.
struct TensorPack { const device float* in[2]; device float* out; };
struct LocalPack { const float* in[2]; float* out; };
struct Staged { const device float* in[2]; threadgroup float* t; };
struct Mixed { float w[2]; device float* out; };
// --- body ---
uint i = thread_position_in_grid.x;
TensorPack pack; pack.in[0] = (a); pack.in[1] = a + i; pack.out = (o);
TensorPack braced = {{a, a}, o};
TensorPack elided = {a, a, o};
float x = a[i], y = 0.0f, z = 0.0f;
LocalPack lp; lp.in[0] = &x; lp.in[1] = &y; lp.out = &z;
LocalPack lb = {{&x, &y}, &z};
threadgroup float tile[16];
Staged staged = {a, a, tile};
Staged stages[2] = {{{a, a}, tile}, {{a, a}, tile + 8}};
Mixed m = {{1.0f, 2.0f}, o};
const device float* ptrs[2]; ptrs[0] = a; ptrs[1] = braced.in[0];
const float* locals[2] = {&x, &y};
float* outs[1]; outs[0] = &z;
threadgroup float* tiles[2] = {tile, tile + 8};
*lp.out = *lp.in[0] + *lb.in[1] + *locals[0] - 2 * x + (tiles[1] - tiles[0] - 8) + (stages[1].t - staged.t - 8);
float zero = (ptrs[1][i] - elided.in[0][i]) + (staged.in[1][i] - a[i]) + (m.out - o) + (m.w[1] - 2.0f) + *outs[0];
pack.out[i] = pack.in[0][i] + pack.in[1][0] + zero;
