// expect: body line 2: 'simd_shuffle_down<Sample, int>' is unavailable: Metal's SIMD-group shuffles and broadcasts take scalars and vectors, not structs
// Metal exchanges scalars and vectors between lanes; a struct goes member by member.
struct Sample { float value; int index; };
// --- body ---
uint i = thread_position_in_grid.x;
Sample next = simd_shuffle_down(Sample{a[i], int(i)}, 1);
o[i] = 2 * a[i] + 0 * next.value;
