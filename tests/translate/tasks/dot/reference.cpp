#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  const double* w = a.in("w");
  double s = 0;
  for (int64_t i = 0; i < a.axis("n"); ++i) s += x[i] * w[i];
  a.out("y")[0] = s;
}
