// Honest (must pass): MLX's kernel idioms: `constexpr constant` sizes, METAL_FUNC templates reducing with
// simd_shuffle_down over `ushort` offsets (lane 0 holds the result, simd_broadcast shares it), `ushort` lane and
// SIMD-group ids, `[[maybe_unused]]`, metal::precise::exp, two-level reductions through threadgroup memory between
// threadgroup_barrier(mem_flags::mem_threadgroup) calls, a template int for the threadgroup size.
// grid: TG * rows, 1, 1
// threadgroup: TG, 1, 1
// template: TG = 128
constexpr constant ushort SIMD_SIZE = 32;

template <typename T>
METAL_FUNC T simd_reduce_max(T v) {
  for (ushort offset = SIMD_SIZE / 2; offset > 0; offset /= 2) v = metal::max(v, simd_shuffle_down(v, offset));
  return simd_broadcast(v, 0);
}

template <typename T>
METAL_FUNC T simd_reduce_sum(T v) {
  for (ushort offset = SIMD_SIZE / 2; offset > 0; offset /= 2) v += simd_shuffle_down(v, offset);
  return simd_broadcast(v, 0);
}
// --- body ---
constexpr ushort n_simd = TG / SIMD_SIZE;
threadgroup float local_max[n_simd];
threadgroup float local_sum[n_simd];
const uint row = threadgroup_position_in_grid.x;
const ushort lid = ushort(thread_index_in_threadgroup);
const ushort simd_lane_id = ushort(thread_index_in_simdgroup);
const ushort simd_group_id = ushort(simdgroup_index_in_threadgroup);
[[maybe_unused]] const uint n_rows = threadgroups_per_grid.x;
const device float* in = x + size_t(row) * cols;
device float* out = y + size_t(row) * cols;

float m = -INFINITY;
for (int c = lid; c < cols; c += TG) m = metal::max(m, in[c]);
m = simd_reduce_max(m);
if (simd_lane_id == 0) local_max[simd_group_id] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = simd_reduce_max(simd_lane_id < n_simd ? local_max[simd_lane_id] : -INFINITY);

float s = 0.0f;
for (int c = lid; c < cols; c += TG) s += metal::precise::exp(in[c] - m);
s = simd_reduce_sum(s);
if (simd_lane_id == 0) local_sum[simd_group_id] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
s = simd_reduce_sum(simd_lane_id < n_simd ? local_sum[simd_lane_id] : 0.0f);

const float inv = 1.0f / s;
for (int c = lid; c < cols; c += TG) out[c] = metal::precise::exp(in[c] - m) * inv;
