// selective_scan, built-in metal template family state_lanes: one SIMD group per (batch, channel), its lanes
// over the n states; C.h by simd_sum.
// Knobs: ksearch sets each knob's template directive below to the value it tries (state_lanes.toml lists them).
// grid: 32 * d, b, 1
// threadgroup: 32 * R, 1, 1
// template: N = n
// template: R = 2
#include "scan.h"
// --- body ---
// 32x the threads of a thread-per-channel scan: the parallelism short batches of few channels and long
// sequences need. Lane k holds states k, k + 32, ... (S = ceil(n / 32) of them); no threadgroup memory or barriers.
constexpr int S = (N + 31) / 32;
const int channel = int(thread_position_in_grid.x) / 32;
const int lane = int(thread_index_in_simdgroup);
const uint bi = thread_position_in_grid.y;
const int group = channel / (d / g);
const bool fixed_bc = bc_layout == 0;

float h[S];
float a[S];
for (int j = 0; j < S; ++j) {
  const int s = lane + 32 * j;
  h[j] = 0.0f;
  a[j] = s < n ? A[channel * n + s] : 0.0f;
}
const float d_value = has_D ? D[channel] : 0.0f;
const float bias = has_delta_bias ? delta_bias[channel] : 0.0f;
const size_t row = (size_t(bi) * d + channel) * l;  // of u, delta, z, y
const size_t bc = (size_t(bi) * g + group) * n * l;  // of B, C when input-dependent

for (int t = 0; t < l; ++t) {
  const size_t xi = row + t;
  const float dt = time_step(delta[xi], bias, delta_softplus != 0);
  const float ut = u[xi];
  const float du = dt * ut;
  float acc = 0.0f;
  for (int j = 0; j < S; ++j) {
    const int s = lane + 32 * j;
    if (s < n) {
      const size_t k = fixed_bc ? size_t(channel) * n + s : bc + size_t(s) * l + t;
      h[j] = metal::exp(dt * a[j]) * h[j] + du * B[k];
      acc += h[j] * C[k];
    }
  }
  acc = simd_sum(acc);
  if (lane == 0) y[xi] = scan_output(acc, has_D, d_value, ut, has_z, has_z ? z[xi] : 0.0f);
}
if (has_last_state)
  for (int j = 0; j < S; ++j) {
    const int s = lane + 32 * j;
    if (s < n) last_state[(size_t(bi) * d + channel) * n + s] = h[j];
  }
