// selective_scan, built-in metal template family chunked_bc: one thread per (batch, channel) with its n states
// in registers; the threadgroup's channels share one group of B/C, staged a time chunk at a time in
// threadgroup memory.
// Knobs: ksearch sets each knob's template directive below to the value it tries (chunked_bc.toml lists them).
// grid: d / g, g, b
// threadgroup: TG, 1, 1
// template: N = n
// template: TG = 64
// template: CHUNK = 32
#include "scan.h"
// --- body ---
// The grid is (channels of a group, groups, batches), so a threadgroup never straddles two groups and all
// its channels read the same B/C rows; the last threadgroup of a group may be partial.
const int group = int(thread_position_in_grid.y);
const int channel = group * (d / g) + int(thread_position_in_grid.x);
const uint bi = thread_position_in_grid.z;
const uint tid = thread_position_in_threadgroup.x;
// Threads in this threadgroup: fewer than TG in a group's last one (and when d / g < TG, where MLX clamps
// the threadgroup to the grid).
const int threads = min(TG, d / g - int(threadgroup_position_in_grid.x) * TG);
// Input-dependent B/C (b, g, n, l) are staged; fixed ones (d, n) belong to one channel each and stay in memory.
const bool staged = bc_layout != 0;
threadgroup float Bs[N * CHUNK];
threadgroup float Cs[N * CHUNK];

float h[N];
float a[N];
for (int s = 0; s < N; ++s) {
  h[s] = 0.0f;
  a[s] = A[channel * N + s];
}
const float d_value = has_D ? D[channel] : 0.0f;
const float bias = has_delta_bias ? delta_bias[channel] : 0.0f;
const size_t row = (size_t(bi) * d + channel) * l;  // of u, delta, z, y

for (int t0 = 0; t0 < l; t0 += CHUNK) {
  const int len = min(CHUNK, l - t0);
  // staged is the same for every thread, so all of them reach both barriers.
  if (staged) {
    threadgroup_barrier(mem_flags::mem_threadgroup);  // the previous chunk has been read
    const size_t bc = (size_t(bi) * g + group) * N * l + t0;
    for (int k = int(tid); k < N * CHUNK; k += threads) {
      const int s = k / CHUNK, tt = k % CHUNK;  // consecutive threads read consecutive time steps
      if (tt < len) {
        Bs[k] = B[bc + size_t(s) * l + tt];
        Cs[k] = C[bc + size_t(s) * l + tt];
      }
    }
    threadgroup_barrier(mem_flags::mem_threadgroup);
  }
  for (int tt = 0; tt < len; ++tt) {
    const size_t xi = row + t0 + tt;
    const float dt = time_step(delta[xi], bias, delta_softplus != 0);
    const float ut = u[xi];
    const float du = dt * ut;
    float acc = 0.0f;
    for (int s = 0; s < N; ++s) {
      const float b_value = staged ? Bs[s * CHUNK + tt] : B[channel * N + s];
      const float c_value = staged ? Cs[s * CHUNK + tt] : C[channel * N + s];
      h[s] = metal::exp(dt * a[s]) * h[s] + du * b_value;
      acc += h[s] * c_value;
    }
    y[xi] = scan_output(acc, has_D, d_value, ut, has_z, has_z ? z[xi] : 0.0f);
  }
}
if (has_last_state)
  for (int s = 0; s < N; ++s) last_state[(size_t(bi) * d + channel) * N + s] = h[s];
