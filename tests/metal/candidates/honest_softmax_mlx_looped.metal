// Honest (must pass): MLX's looped softmax layout: 256 threads per row, N_READS elements per thread per step with
// float4 loads and stores through `device const float4*` casts where the row is 16-byte aligned, two-level reductions
// (simd_max, then a simd_shuffle_down tree for the sum) through threadgroup partials, MLX_MTL_PRAGMA_UNROLL, the
// Metal stdlib's own spelling of always-inline, `select`.
// grid: 256 * rows, 1, 1
// threadgroup: 256, 1, 1
// template: N_READS = 4
#include <metal_stdlib>
using namespace metal;

#define SIMD_SIZE 32
#define INLINE_HELPER inline __attribute__((__always_inline__))

// Reads N elements starting at `base`; past the row's end they are `fill`.
template <int N>
INLINE_HELPER void read_block(const device float* src, int base, int n, bool vectorized, thread float* out, float fill) {
  if (vectorized && base + N <= n) {
    MLX_MTL_PRAGMA_UNROLL
    for (int i = 0; i < N; i += 4) {
      float4 v = *((device const float4*)(src + base + i));
      out[i] = v.x;
      out[i + 1] = v.y;
      out[i + 2] = v.z;
      out[i + 3] = v.w;
    }
  } else {
    MLX_MTL_PRAGMA_UNROLL
    for (int i = 0; i < N; ++i) out[i] = base + i < n ? src[base + i] : fill;
  }
}
// --- body ---
threadgroup float partial_max[SIMD_SIZE];
threadgroup float partial_sum[SIMD_SIZE];
uint row = threadgroup_position_in_grid.x;
uint lid = thread_position_in_threadgroup.x;
uint lsize = threads_per_threadgroup.x;
uint sg = simdgroup_index_in_threadgroup;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
const bool vectorized = (cols % 4) == 0;  // every row then starts 16-byte aligned

// Slots of absent SIMD groups hold the reductions' identities.
if (sg == 0) {
  partial_max[lane] = -INFINITY;
  partial_sum[lane] = 0.0f;
}
threadgroup_barrier(mem_flags::mem_threadgroup);

float vals[N_READS];
float m = -INFINITY;
for (int base = lid * N_READS; base < cols; base += lsize * N_READS) {
  read_block<N_READS>(xr, base, cols, vectorized, vals, -INFINITY);
  MLX_MTL_PRAGMA_UNROLL
  for (int i = 0; i < N_READS; ++i) m = max(m, vals[i]);
}
m = simd_max(m);
if (lane == 0) partial_max[sg] = m;
threadgroup_barrier(mem_flags::mem_threadgroup);
m = simd_max(partial_max[lane]);

float s = 0.0f;
for (int base = lid * N_READS; base < cols; base += lsize * N_READS) {
  read_block<N_READS>(xr, base, cols, vectorized, vals, -INFINITY);
  MLX_MTL_PRAGMA_UNROLL
  for (int i = 0; i < N_READS; ++i) s += select(0.0f, exp(vals[i] - m), vals[i] != -INFINITY);
}
for (ushort offset = SIMD_SIZE / 2; offset > 0; offset /= 2) s += simd_shuffle_down(s, offset);
if (lane == 0) partial_sum[sg] = s;
threadgroup_barrier(mem_flags::mem_threadgroup);
const float inv = 1.0f / simd_sum(partial_sum[lane]);

for (int base = lid * N_READS; base < cols; base += lsize * N_READS) {
  if (vectorized && base + N_READS <= cols) {
    MLX_MTL_PRAGMA_UNROLL
    for (int i = 0; i < N_READS; i += 4) {
      float4 v = *((device const float4*)(xr + base + i));
      *((device float4*)(yr + base + i)) = exp(v - m) * inv;
    }
  } else {
    for (int i = 0; i < N_READS && base + i < cols; ++i) yr[base + i] = exp(xr[base + i] - m) * inv;
  }
}
