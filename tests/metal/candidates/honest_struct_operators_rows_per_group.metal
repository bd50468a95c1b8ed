// Honest (must pass): a value struct with a `static constant constexpr` member, const methods and an operator+ merging two
// online-softmax states (running maximum and the sum of exponentials relative to it), merged across lanes with
// simd_shuffle_xor; a `using` alias; R rows per threadgroup, one SIMD group each, the last threadgroup's spare
// SIMD groups returning early (no barrier follows).
// grid: 32 * R * ceil(rows / R), 1, 1
// threadgroup: 32 * R, 1, 1
// template: R = 4
struct OnlineSoftmax {
  static constant constexpr float kEmpty = -INFINITY;
  float max_value = kEmpty;
  float sum = 0.0f;

  METAL_FUNC void add(float v) {
    const float m = metal::max(max_value, v);
    sum = sum * metal::exp(max_value - m) + metal::exp(v - m);
    max_value = m;
  }
  METAL_FUNC float scale_of(float m) const { return max_value == kEmpty ? 0.0f : metal::exp(max_value - m); }
  METAL_FUNC OnlineSoftmax operator+(OnlineSoftmax other) const {
    OnlineSoftmax r;
    r.max_value = metal::max(max_value, other.max_value);
    r.sum = sum * scale_of(r.max_value) + other.sum * other.scale_of(r.max_value);
    return r;
  }
  METAL_FUNC OnlineSoftmax across_simdgroup() const {
    OnlineSoftmax r = *this;
    for (ushort mask = 16; mask > 0; mask >>= 1) {
      OnlineSoftmax other;
      other.max_value = simd_shuffle_xor(r.max_value, mask);
      other.sum = simd_shuffle_xor(r.sum, mask);
      r = r + other;
    }
    return r;
  }
};
using index_t = int;
// --- body ---
const index_t row = index_t(threadgroup_position_in_grid.x * R + simdgroup_index_in_threadgroup);
if (row >= rows) return;
const ushort lane = ushort(thread_index_in_simdgroup);
const device float* xr = x + size_t(row) * cols;
device float* yr = y + size_t(row) * cols;
OnlineSoftmax state;
for (index_t c = lane; c < cols; c += 32) state.add(xr[c]);
const OnlineSoftmax total = state.across_simdgroup();
const float inv = 1.0f / total.sum;
for (index_t c = lane; c < cols; c += 32) yr[c] = metal::exp(xr[c] - total.max_value) * inv;
