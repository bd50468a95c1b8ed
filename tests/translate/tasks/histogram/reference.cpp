#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  double* counts = a.out("counts");
  for (int b = 0; b < 64; ++b) counts[b] = 0;
  for (int64_t i = 0; i < a.axis("n"); ++i) counts[int(x[i])] += 1;
}
