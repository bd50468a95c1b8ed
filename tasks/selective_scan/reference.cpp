#include <cmath>
#include <vector>

#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double *u = a.in("u"), *delta = a.in("delta"), *A = a.in("A"), *B = a.in("B"), *C = a.in("C");
  const double *D = a.in("D"), *z = a.in("z"), *bias = a.in("delta_bias");
  double* y = a.out("y");
  double* last = a.out("last_state");
  const int64_t b = a.axis("b"), d = a.axis("d"), l = a.axis("l"), n = a.axis("n"), g = a.axis("g");
  const bool fixed_bc = a.value("bc_layout") == 0;
  const bool softplus = a.value("delta_softplus") != 0;
#pragma omp parallel for collapse(2)
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t i = 0; i < d; ++i) {
      const int64_t group = i / (d / g);
      std::vector<double> h(size_t(n), 0.0);
      for (int64_t t = 0; t < l; ++t) {
        const int64_t x = (bi * d + i) * l + t;
        double dt = delta[x] + (bias ? bias[i] : 0.0);
        if (softplus) dt = dt > 20 ? dt : std::log1p(std::exp(dt));
        double acc = 0;
        for (int64_t s = 0; s < n; ++s) {
          const double Bv = fixed_bc ? B[i * n + s] : B[((bi * g + group) * n + s) * l + t];
          const double Cv = fixed_bc ? C[i * n + s] : C[((bi * g + group) * n + s) * l + t];
          h[size_t(s)] = std::exp(dt * A[i * n + s]) * h[size_t(s)] + dt * Bv * u[x];
          acc += h[size_t(s)] * Cv;
        }
        if (D) acc += D[i] * u[x];
        if (z) acc *= z[x] / (1.0 + std::exp(-z[x]));
        y[x] = acc;
      }
      if (last)
        for (int64_t s = 0; s < n; ++s) last[(bi * d + i) * n + s] = h[size_t(s)];
    }
}
