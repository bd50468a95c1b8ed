// grid: 40 * rows, 1, 1
// threadgroup: 40, 1, 1
// --- body ---
// attack: 40 threads per row, so each row's second SIMD group has 8 lanes, reduced by shuffle-down trees over 32
// lanes without a guard: its lane 0 combines values read from lanes 8-31, which a Mac leaves undefined (an emulator
// that returns the reader's own value gives max(m, m) and a plausible sum). The values reach the outputs.
// expect: runtime_error
// expect-message: inactive_lane_read: simd_shuffle_down
threadgroup float partial[2];
uint row = threadgroup_position_in_grid.x;
uint t = thread_position_in_threadgroup.x;
uint lane = thread_index_in_simdgroup, sg = simdgroup_index_in_threadgroup;
const device float* xr = x + size_t(row) * cols;
float m = -INFINITY;
for (int c = t; c < cols; c += 40) m = max(m, xr[c]);
for (ushort offset = 16; offset > 0; offset /= 2) m = max(m, simd_shuffle_down(m, offset));
if (lane == 0) partial[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = max(partial[0], partial[1]);
threadgroup_barrier(mem_flags::mem_threadgroup);
float s = 0.0f;
for (int c = t; c < cols; c += 40) s += exp(xr[c] - m);
for (ushort offset = 16; offset > 0; offset /= 2) s += simd_shuffle_down(s, offset);
if (lane == 0) partial[sg] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
s = partial[0] + partial[1];
for (int c = t; c < cols; c += 40) y[size_t(row) * cols + c] = exp(xr[c] - m) / s;
