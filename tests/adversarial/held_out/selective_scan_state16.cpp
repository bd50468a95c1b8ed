// Hard-codes the state size of every visible workload (n = 16) in a fixed-size state array.
// task: selective_scan
// expect-visible: passed
// expect-held-out: wrong_answer|runtime_error
#include <cmath>
#include <cstdint>

extern "C" void selective_scan(const float* u, const float* delta, const float* A, const float* B, const float* C,
                               const float* D, const float* z, const float* delta_bias, float* y, float* last_state,
                               int64_t b, int64_t d, int64_t l, int64_t, int64_t g, int32_t bc_layout,
                               int32_t delta_softplus) {
  constexpr int64_t n = 16;
#pragma omp parallel for collapse(2)
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t i = 0; i < d; ++i) {
      const int64_t group = i / (d / g);
      float h[n] = {};
      for (int64_t t = 0; t < l; ++t) {
        const int64_t x = (bi * d + i) * l + t;
        float dt = delta[x] + (delta_bias ? delta_bias[i] : 0.0f);
        if (delta_softplus) dt = dt > 20 ? dt : std::log1p(std::exp(dt));
        float acc = 0;
        for (int64_t s = 0; s < n; ++s) {
          const float Bv = bc_layout == 0 ? B[i * n + s] : B[((bi * g + group) * n + s) * l + t];
          const float Cv = bc_layout == 0 ? C[i * n + s] : C[((bi * g + group) * n + s) * l + t];
          h[s] = std::exp(dt * A[i * n + s]) * h[s] + dt * Bv * u[x];
          acc += h[s] * Cv;
        }
        if (D) acc += D[i] * u[x];
        if (z) acc *= z[x] / (1.0f + std::exp(-z[x]));
        y[x] = acc;
      }
      if (last_state)
        for (int64_t s = 0; s < n; ++s) last_state[(bi * d + i) * n + s] = h[s];
    }
}
