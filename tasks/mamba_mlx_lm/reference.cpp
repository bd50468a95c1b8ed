#include <cmath>
#include <vector>

#include "ksearch/reference.h"

// mlx-lm's MambaBlock.ssm_step applied for t = 0..l-1, in double.
extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double *x = a.in("x"), *delta = a.in("delta"), *A = a.in("A"), *B = a.in("B"), *C = a.in("C");
  const double *D = a.in("D"), *state = a.in("state");
  double* y = a.out("y");
  double* new_state = a.out("new_state");
  const int64_t b = a.axis("b"), l = a.axis("l"), d = a.axis("d"), n = a.axis("n");
#pragma omp parallel for collapse(2)
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t i = 0; i < d; ++i) {
      std::vector<double> h(size_t(n), 0.0);
      if (state)
        for (int64_t s = 0; s < n; ++s) h[size_t(s)] = state[(bi * d + i) * n + s];
      for (int64_t t = 0; t < l; ++t) {
        const int64_t at = (bi * l + t) * d + i;
        const double dt = delta[at] > 20 ? delta[at] : std::log1p(std::exp(delta[at]));
        double acc = 0;
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
