#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double *x = a.in("x"), *w = a.in("w");
  double* y = a.out("y");
  const double alpha = static_cast<float>(a.value("alpha"));
  for (int64_t i = 0; i < a.axis("n"); ++i) y[i] = alpha * x[i] + w[i];
}
