// Naive seed: one channel at a time, sequential in time, state in a heap array, single-threaded.
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void mamba_mlx_lm(const float* x, const float* delta, const float* A, const float* B, const float* C,
                             const float* D, const float* state, float* y, float* new_state, int64_t b, int64_t l,
                             int64_t d, int64_t n) {
  std::vector<float> h(static_cast<size_t>(n));
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t i = 0; i < d; ++i) {
      for (int64_t s = 0; s < n; ++s) h[size_t(s)] = state ? state[(bi * d + i) * n + s] : 0.0f;
      for (int64_t t = 0; t < l; ++t) {
        const int64_t at = (bi * l + t) * d + i;
        const float dt = delta[at] > 20 ? delta[at] : std::log1p(std::exp(delta[at]));
        float acc = 0;
        for (int64_t s = 0; s < n; ++s) {
          const int64_t bc = (bi * l + t) * n + s;
          h[size_t(s)] = std::exp(dt * A[i * n + s]) * h[size_t(s)] + dt * x[at] * B[bc];
          acc += h[size_t(s)] * C[bc];
        }
        y[at] = acc + D[i] * x[at];
      }
      for (int64_t s = 0; s < n; ++s) new_state[(bi * d + i) * n + s] = h[size_t(s)];
    }
}
