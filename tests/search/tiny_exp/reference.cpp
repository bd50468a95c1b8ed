#include <cmath>

#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  double* y = a.out("y");
  const int64_t n = a.axis("rows") * a.axis("cols");
  for (int64_t i = 0; i < n; ++i) y[i] = std::exp(x[i]);
}
