#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  const double* w = a.in("w");
  double* y = a.out("y");
  const int64_t cin = a.axis("cin"), cout = a.axis("cout"), len = a.axis("len"), kw = a.axis("kw");
  for (int64_t o = 0; o < cout; ++o)
    for (int64_t l = 0; l < len; ++l) {
      double s = 0;
      for (int64_t c = 0; c < cin; ++c)
        for (int64_t k = 0; k < kw; ++k) {
          const int64_t p = l + k - kw / 2;
          if (p >= 0 && p < len) s += w[(o * cin + c) * kw + k] * x[c * len + p];
        }
      y[o * len + l] = s;
    }
}
