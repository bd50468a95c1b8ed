// Collectives over active lanes only: early exit and divergent branches.
uint i = thread_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
if (i >= n_valid) return;
float v = x[i];
float total = simd_sum(v);
float part;
if (lane < 8) {
  part = simd_sum(v);
} else {
  part = simd_max(v);
}
out[2 * i] = total;
out[2 * i + 1] = part;
