// Honest (must pass): one SIMD group per row in a single read pass: each lane keeps an online (max, sum), the lanes
// combine theirs through a simd_shuffle_xor butterfly, unrolled with a #pragma; a METAL_FUNC template helper taking
// thread references, a `static constant constexpr` lane count.
// grid: 32 * rows, 1, 1
// threadgroup: 32, 1, 1
static constant constexpr int kSimdSize = 32;

// Merges the online softmax statistics (other_max, other_sum) into (max_value, sum); a side that saw no element
// (max -inf) adds nothing, so -inf - -inf never reaches exp.
template <typename T>
METAL_FUNC void online_merge(thread T& max_value, thread T& sum, T other_max, T other_sum) {
  T merged = metal::max(max_value, other_max);
  T own = max_value == -INFINITY ? T(0) : sum * metal::exp(max_value - merged);
  T other = other_max == -INFINITY ? T(0) : other_sum * metal::exp(other_max - merged);
  sum = own + other;
  max_value = merged;
}
// --- body ---
uint row = threadgroup_position_in_grid.x;
ushort lane = thread_index_in_simdgroup;
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
float max_value = -INFINITY, sum = 0.0f;
for (int c = lane; c < cols; c += kSimdSize) online_merge(max_value, sum, xr[c], 1.0f);
#pragma clang loop unroll(full)
for (ushort offset = kSimdSize / 2; offset > 0; offset >>= 1) {
  float other_max = simd_shuffle_xor(max_value, offset);
  float other_sum = simd_shuffle_xor(sum, offset);
  online_merge(max_value, sum, other_max, other_sum);
}
const float inv = 1.0f / sum;
for (int c = lane; c < cols; c += kSimdSize) yr[c] = metal::exp(xr[c] - max_value) * inv;
