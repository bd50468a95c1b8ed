#pragma once
// The sequential fallback for state sizes the families' tiled kernels do not cover. Uses the including
// family's step_dt.

// Any other state size: one thread per channel, sequential (states in a local array).
__global__ void scan_generic(const float* u, const float* delta, const float* A, const float* B, const float* C,
                             const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                             int64_t b, int64_t d, int64_t l, int64_t n, int64_t g, int bc_layout, int softplus) {
  const int64_t idx = blockIdx.x * int64_t(blockDim.x) + threadIdx.x;
  if (idx >= b * d) return;
  const int64_t bi = idx / d, i = idx % d, group = i / (d / g);
  float h[256];
  for (int64_t s = 0; s < n; ++s) h[s] = 0;
  for (int64_t t = 0; t < l; ++t) {
    const int64_t x = idx * l + t;
    const float dt = step_dt(delta[x] + (delta_bias ? delta_bias[i] : 0.0f), softplus);
    float acc = 0;
    for (int64_t s = 0; s < n; ++s) {
      const float Bv = bc_layout == 0 ? B[i * n + s] : B[((bi * g + group) * n + s) * l + t];
      const float Cv = bc_layout == 0 ? C[i * n + s] : C[((bi * g + group) * n + s) * l + t];
      h[s] = expf(dt * A[i * n + s]) * h[s] + dt * Bv * u[x];
      acc += h[s] * Cv;
    }
    if (D) acc += D[i] * u[x];
    if (z) acc *= z[x] / (1.0f + expf(-z[x]));
    y[x] = acc;
  }
  if (last_state)
    for (int64_t s = 0; s < n; ++s) last_state[idx * n + s] = h[s];
}
