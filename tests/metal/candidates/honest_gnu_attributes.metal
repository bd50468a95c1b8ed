// Honest (must pass): GNU attributes as Metal code writes them: an always-inline helper (what MLX's METAL_FUNC
// expands to) with a __restrict pointer, a noinline one, an aligned struct, and a constexpr constant-address-space
// scale; a loop unrolled through _Pragma in a macro, as MLX's MLX_MTL_PRAGMA_UNROLL and steel's STEEL_PRAGMA_UNROLL are.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
struct __attribute__((aligned(16))) RowStats {
  float max_value;
  float sum;
};
inline __attribute__((always_inline)) float row_max(const device float* __restrict x, int cols, uint lane) {
  float m = -INFINITY;
  for (int c = lane; c < cols; c += 32) m = max(m, x[c]);
  return simd_max(m);
}
__attribute__((noinline)) float scaled_exp(float v, float m);
constant constexpr float kLog2e = 1.4426950408889634f;
#define UNROLL_FULL _Pragma("clang loop unroll(full)")
float scaled_exp(float v, float m) { return exp2((v - m) * kLog2e); }
// --- body ---
uint row = threadgroup_position_in_grid.x;
uint lane = thread_index_in_simdgroup;
const device float* xr = x + row * cols;
device float* yr = y + row * cols;
RowStats stats;
stats.max_value = row_max(xr, cols, lane);
stats.sum = 0.0f;
for (int c = lane; c < cols; c += 32) stats.sum += scaled_exp(xr[c], stats.max_value);
stats.sum = simd_sum(stats.sum);
float twice = 0.0f;
UNROLL_FULL
for (int k = 0; k < 2; ++k) twice += stats.sum;
stats.sum = twice * 0.5f;
for (int c = lane; c < cols; c += 32) yr[c] = scaled_exp(xr[c], stats.max_value) / stats.sum;
