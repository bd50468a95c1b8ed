// Seed: one thread per (batch, channel) runs the recurrence over time sequentially, with the n
// states in a thread-private array (n is a template constant, N). No cross-thread communication.
// grid: d, b, 1
// threadgroup: TG, 1, 1
// template: N = n
// template: TG = 64  // ksearch:knob TG = 64 in [32, 64, 128, 256]
// --- body ---
uint i = thread_position_in_grid.x;
uint bi = thread_position_in_grid.y;
if (int(i) >= d) return;
int group = int(i) / (d / g);
float h[N];
for (int s = 0; s < N; ++s) h[s] = 0.0f;
float Dv = has_D ? D[i] : 0.0f;
float bias = has_delta_bias ? delta_bias[i] : 0.0f;

for (int t = 0; t < l; ++t) {
  size_t x = (size_t(bi) * d + i) * l + t;
  float dt = delta[x] + bias;
  if (delta_softplus) dt = dt > 20.0f ? dt : log(1.0f + exp(dt));
  float ut = u[x];
  float acc = 0.0f;
  for (int s = 0; s < N; ++s) {
    float Bv, Cv;
    if (bc_layout == 0) {
      Bv = B[i * N + s];
      Cv = C[i * N + s];
    } else {
      size_t k = ((size_t(bi) * g + group) * N + s) * l + t;
      Bv = B[k];
      Cv = C[k];
    }
    h[s] = exp(dt * A[i * N + s]) * h[s] + dt * Bv * ut;
    acc += h[s] * Cv;
  }
  if (has_D) acc += Dv * ut;
  if (has_z) {
    float zv = z[x];
    acc *= zv / (1.0f + exp(-zv));
  }
  y[x] = acc;
}
if (has_last_state)
  for (int s = 0; s < N; ++s) last_state[(size_t(bi) * d + i) * N + s] = h[s];
