// Seed: one thread per (channel, batch) runs mlx-lm's recurrence over time sequentially, with the n
// states in a thread-private array (n is a template constant, N). Neighbouring threads read
// neighbouring channels of the (b, l, d) activations.
// grid: d, b, 1
// threadgroup: TG, 1, 1
// template: N = n
// template: TG = 64  // ksearch:knob TG = 64 in [32, 64, 128, 256]
// --- body ---
uint i = thread_position_in_grid.x;
uint bi = thread_position_in_grid.y;
if (int(i) >= d) return;
float h[N];
for (int s = 0; s < N; ++s) h[s] = has_state ? state[(size_t(bi) * d + i) * N + s] : 0.0f;
float Dv = D[i];

for (int t = 0; t < l; ++t) {
  size_t at = (size_t(bi) * l + t) * d + i;
  float dt = delta[at] > 20.0f ? delta[at] : log(1.0f + exp(delta[at]));
  float xt = x[at];
  float acc = 0.0f;
  for (int s = 0; s < N; ++s) {
    size_t bc = (size_t(bi) * l + t) * N + s;
    h[s] = exp(dt * A[i * N + s]) * h[s] + dt * xt * B[bc];
    acc += h[s] * C[bc];
  }
  y[at] = acc + Dv * xt;
}
for (int s = 0; s < N; ++s) new_state[(size_t(bi) * d + i) * N + s] = h[s];
