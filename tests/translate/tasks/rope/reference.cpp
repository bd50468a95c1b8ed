#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  const double* cos = a.in("cos");
  const double* sin = a.in("sin");
  double* y = a.out("y");
  const int64_t t = a.axis("t"), h = a.axis("h"), half = a.axis("rot");
  for (int64_t p = 0; p < t; ++p)
    for (int64_t k = 0; k < h; ++k)
      for (int64_t i = 0; i < half; ++i) {
        const int64_t base = (p * h + k) * 2 * half;
        const double x0 = x[base + i], x1 = x[base + half + i], c = cos[p * half + i], s = sin[p * half + i];
        y[base + i] = x0 * c - x1 * s;
        y[base + half + i] = x1 * c + x0 * s;
      }
}
