#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  double *y = a.out("y"), *mask = a.out("mask"), *count = a.out("count");
  const int64_t n = a.axis("rows") * a.axis("cols");
  const double thr = static_cast<float>(a.value("thr"));
  const bool invert = a.value("invert") != 0;
  count[0] = 0;
  for (int64_t i = 0; i < n; ++i) {
    y[i] = a.value("scale") * x[i];
    mask[i] = (x[i] > thr) != invert ? 1 : 0;
    count[0] += mask[i];
  }
}
