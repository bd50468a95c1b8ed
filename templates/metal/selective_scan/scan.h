// Per-step helpers shared by the metal selective_scan families.
#pragma once

// dt = softplus(delta + bias) when `softplus` (dt itself above 20, where softplus(dt) == dt in float),
// else delta + bias.
inline float time_step(float delta_value, float bias, bool softplus) {
  const float dt = delta_value + bias;
  return softplus && dt <= 20.0f ? metal::log(1.0f + metal::exp(dt)) : dt;
}

// y = C.h (+ D * u) (* silu(z)).
inline float scan_output(float acc, bool with_d, float d_value, float u_value, bool with_z, float z_value) {
  if (with_d) acc += d_value * u_value;
  if (with_z) acc *= z_value / (1.0f + metal::exp(-z_value));
  return acc;
}
