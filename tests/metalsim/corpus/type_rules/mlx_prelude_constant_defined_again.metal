// expect: header line 3: redefinition of 'SOFTMAX_N_READS'
// MLX's prelude (defines.h) already declares it, as on a Mac, where a kernel ported from MLX's softmax does not compile.
static constant constexpr int SOFTMAX_N_READS = 4;
// --- body ---
uint i = thread_position_in_grid.x;
o[i] = 2.0f * a[i] * float(SOFTMAX_N_READS / 4);
