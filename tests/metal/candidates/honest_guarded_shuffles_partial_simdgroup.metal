// Honest (must pass): 40 threads per row, so each row's second SIMD group has 8 lanes. The max and the sum are
// reduced by shuffle-down trees whose upper lanes read past those 8 (undefined in Metal) but keep the value only where
// `lane + offset` is a running lane, as CUB's logical warps do: the undefined values never reach the outputs.
// grid: 40 * rows, 1, 1
// threadgroup: 40, 1, 1
// --- body ---
threadgroup float partial[2];
uint row = threadgroup_position_in_grid.x;
uint t = thread_position_in_threadgroup.x;
uint lane = thread_index_in_simdgroup, sg = simdgroup_index_in_threadgroup;
uint running = min(40u - sg * 32u, 32u);  // lanes of this SIMD group
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = t; c < cols; c += 40) m = max(m, xr[c]);
for (ushort offset = 1; offset < 32; offset *= 2) {
  float other = simd_shuffle_down(m, offset);
  if (lane + offset < running) m = max(m, other);
}
if (lane == 0) partial[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = max(partial[0], partial[1]);
threadgroup_barrier(mem_flags::mem_threadgroup);
float s = 0.0f;
for (int c = t; c < cols; c += 40) s += exp(xr[c] - m);
for (ushort offset = 1; offset < 32; offset *= 2) {
  float other = simd_shuffle_down(s, offset);
  if (lane + offset < running) s += other;
}
if (lane == 0) partial[sg] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
s = partial[0] + partial[1];
for (int c = t; c < cols; c += 40) y[size_t(row) * cols + c] = exp(xr[c] - m) / s;
