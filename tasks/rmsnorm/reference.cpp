#include <cmath>

#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  const double* w = a.in("weight");
  double* y = a.out("y");
  const int64_t rows = a.axis("rows"), cols = a.axis("cols");
  // eps is an fp32 parameter: use the value the kernel sees.
  const double eps = static_cast<float>(a.value("eps"));
#pragma omp parallel for
  for (int64_t r = 0; r < rows; ++r) {
    double sum_sq = 0;
    for (int64_t c = 0; c < cols; ++c) sum_sq += x[r * cols + c] * x[r * cols + c];
    const double inv = 1.0 / std::sqrt(sum_sq / double(cols) + eps);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] * inv * w[c];
  }
}
