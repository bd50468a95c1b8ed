// Honest (must pass): y written in passes separated by threadgroup_barrier(mem_device); later passes use a different
// thread-to-element mapping, so threads read what other threads of the group wrote.
// grid: 128 * rows, 1, 1
// threadgroup: 128, 1, 1
// --- body ---
threadgroup float partial[4];
uint row = threadgroup_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
uint sg = simdgroup_index_in_threadgroup, lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
// pass 1: copy the row into y (strided)
for (int c = lid; c < cols; c += 128) yr[c] = xr[c];
threadgroup_barrier(mem_flags::mem_device);
// pass 2: max over contiguous chunks of y
int chunk = (cols + 127) / 128;
int lo = min(int(lid) * chunk, cols), hi = min(lo + chunk, cols);
float m = -INFINITY;
for (int c = lo; c < hi; ++c) m = max(m, yr[c]);
m = simd_max(m);
if (lane == 0) partial[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup | mem_flags::mem_device);
m = max(max(partial[0], partial[1]), max(partial[2], partial[3]));
threadgroup_barrier(mem_flags::mem_threadgroup);
// pass 3: exponentials in place, contiguous chunks
float s = 0.0f;
for (int c = lo; c < hi; ++c) {
  float e = exp(yr[c] - m);
  yr[c] = e;
  s += e;
}
s = simd_sum(s);
if (lane == 0) partial[sg] = s;
threadgroup_barrier(mem_flags::mem_device | mem_flags::mem_threadgroup);
float inv = 1.0f / (partial[0] + partial[1] + partial[2] + partial[3]);
// pass 4: normalize, strided again
for (int c = lid; c < cols; c += 128) yr[c] *= inv;
