#include <cmath>

#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  double* y = a.out("y");
  const int64_t rows = a.axis("rows"), cols = a.axis("cols");
  for (int64_t r = 0; r < rows; ++r) {
    double m = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, std::fabs(x[r * cols + c]));
    y[r] = m;
  }
}
