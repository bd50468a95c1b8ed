// expect: body line 2: 'simd_sum<bool>' is unavailable: Metal's SIMD-group reductions take scalars and vectors of numbers
// Metal sums no bool (MLX reduces bools with simd_all / simd_any); the host compiler would count the true lanes.
// --- body ---
uint i = thread_position_in_grid.x;
bool positives = simd_sum(a[i] > 0.0f);
o[i] = positives ? 2 * a[i] : 0.0f;
