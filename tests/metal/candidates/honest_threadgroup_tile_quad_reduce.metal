// Honest (must pass): a row staged in threadgroup memory one tile at a time (barriers before the tile is read and
// before it is overwritten), reductions in two steps: quad_max / quad_sum over four lanes, then simd_shuffle_xor
// across the quads; threads indexed by the uint3 thread_position_in_threadgroup; metal::numeric_limits.
// grid: 64 * rows, 1, 1
// threadgroup: 64, 1, 1
constexpr constant int TILE = 256;

METAL_FUNC float lanes_max(float v) {
  v = quad_max(v);
  for (ushort mask = 4; mask < 32; mask <<= 1) v = metal::max(v, simd_shuffle_xor(v, mask));
  return v;
}
METAL_FUNC float lanes_sum(float v) {
  v = quad_sum(v);
  for (ushort mask = 4; mask < 32; mask <<= 1) v += simd_shuffle_xor(v, mask);
  return v;
}
// --- body ---
threadgroup float tile[TILE];
threadgroup float partial[2];
const uint3 tid = thread_position_in_threadgroup;
const uint row = threadgroup_position_in_grid.x;
const uint sg = simdgroup_index_in_threadgroup, lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;

float m = -metal::numeric_limits<float>::infinity();
for (int base = 0; base < cols; base += TILE) {
  const int n = min(TILE, cols - base);
  for (int i = tid.x; i < n; i += 64) tile[i] = xr[base + i];
  threadgroup_barrier(mem_flags::mem_threadgroup);
  for (int i = tid.x; i < n; i += 64) m = metal::max(m, tile[i]);
  threadgroup_barrier(mem_flags::mem_threadgroup);
}
m = lanes_max(m);
if (lane == 0) partial[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = metal::max(partial[0], partial[1]);
threadgroup_barrier(mem_flags::mem_threadgroup);

float s = 0.0f;
for (int c = tid.x; c < cols; c += 64) s += metal::exp(xr[c] - m);
s = lanes_sum(s);
if (lane == 0) partial[sg] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
const float inv = 1.0f / (partial[0] + partial[1]);
for (int c = tid.x; c < cols; c += 64) yr[c] = metal::exp(xr[c] - m) * inv;
