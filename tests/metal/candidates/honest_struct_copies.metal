// Honest (must pass): aggregates copied whole, which the compiler turns into memcpy/memset calls that metalsim checks:
// a zeroed local array, per-lane 64-byte chunks of the row loaded and stored as structs, and a threadgroup struct
// with padding (after `tag`) written field by field by one lane and copied whole by every lane after a barrier.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
struct Chunk { float v[16]; };
struct RowStats { half tag; float max_value; float inv_sum; float shift[6]; };
// --- body ---
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
int whole = cols / 16;  // 16-float chunks, the rest element by element
float partial_max[32] = {};
for (int k = 0; k < 32; ++k) partial_max[k] = -INFINITY;
for (int k = lane; k < whole; k += 32) {
  Chunk c = *(const device Chunk*)(xr + 16 * k);
  for (int i = 0; i < 16; ++i) partial_max[lane] = max(partial_max[lane], c.v[i]);
}
for (int i = 16 * whole + lane; i < cols; i += 32) partial_max[lane] = max(partial_max[lane], xr[i]);
float m = simd_max(partial_max[lane]);
float s = 0.0f;
for (int i = lane; i < cols; i += 32) s += exp(xr[i] - m);
s = simd_sum(s);
threadgroup RowStats shared_stats;
if (lane == 0) {
  shared_stats.tag = half(1.0f);
  shared_stats.max_value = m;
  shared_stats.inv_sum = 1.0f / s;
  for (int k = 0; k < 6; ++k) shared_stats.shift[k] = 0.0f;
}
threadgroup_barrier(mem_flags::mem_threadgroup);
RowStats st = shared_stats;
for (int k = lane; k < whole; k += 32) {
  Chunk c = *(const device Chunk*)(xr + 16 * k);
  for (int i = 0; i < 16; ++i) c.v[i] = exp(c.v[i] - st.max_value - st.shift[i % 6]) * st.inv_sum;
  *(device Chunk*)(yr + 16 * k) = c;
}
for (int i = 16 * whole + lane; i < cols; i += 32) yr[i] = exp(xr[i] - st.max_value - st.shift[i % 6]) * st.inv_sum;
