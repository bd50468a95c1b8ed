// Honest (must pass): ggml-metal's soft_max layout: a threadgroup of 256 per row, -MAXFLOAT (finite) as the max's
// starting value, per-SIMD-group results in threadgroup memory whose absent slots hold -MAXFLOAT / 0, clang's short
// loop pragma through a macro (_Pragma("unroll")), `constexpr constant static` struct members (Metal keeps static storage in
// constant memory, as ggml-metal writes its tables).
// grid: 256 * rows, 1, 1
// threadgroup: 256, 1, 1
#define UNROLL _Pragma("unroll")
struct Shape {
  constexpr constant static int kThreads = 256;
  constexpr constant static int kSimdGroups = kThreads / 32;
};
// --- body ---
threadgroup float buf_max[32];
threadgroup float buf_sum[32];
const uint row = threadgroup_position_in_grid.x;
const uint tpitg = thread_position_in_threadgroup.x;
const uint sgitg = simdgroup_index_in_threadgroup;
const uint tiisg = thread_index_in_simdgroup;
const device float* psrc = x + size_t(row) * cols;
device float* pdst = y + size_t(row) * cols;
if (sgitg == 0) {
  buf_max[tiisg] = -MAXFLOAT;
  buf_sum[tiisg] = 0.0f;
}
threadgroup_barrier(mem_flags::mem_threadgroup);

float lmax = -MAXFLOAT;
for (int i00 = tpitg; i00 < cols; i00 += Shape::kThreads) lmax = max(lmax, psrc[i00]);
float max_val = simd_max(lmax);
if (tiisg == 0) buf_max[sgitg] = max_val;
threadgroup_barrier(mem_flags::mem_threadgroup);
max_val = simd_max(buf_max[tiisg]);

float lsum = 0.0f;
for (int i00 = tpitg; i00 < cols; i00 += Shape::kThreads) {
  const float e = exp(psrc[i00] - max_val);
  lsum += e;
  pdst[i00] = e;
}
float sum = simd_sum(lsum);
if (tiisg == 0) buf_sum[sgitg] = sum;
threadgroup_barrier(mem_flags::mem_threadgroup);
float total = 0.0f;
UNROLL
for (int i = 0; i < Shape::kSimdGroups; ++i) total += buf_sum[i];
const float inv_sum = 1.0f / total;
for (int i00 = tpitg; i00 < cols; i00 += Shape::kThreads) pdst[i00] *= inv_sum;
