#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  const double* idx = a.in("idx");
  double* y = a.out("y");
  const int64_t m = a.axis("m"), d = a.axis("d");
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < d; ++j) y[i * d + j] = x[int64_t(idx[i]) * d + j];
}
