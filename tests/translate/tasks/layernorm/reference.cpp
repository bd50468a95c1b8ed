#include <cmath>

#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  const double* gamma = a.in("gamma");
  const double* beta = a.in("beta");
  double* y = a.out("y");
  const int64_t rows = a.axis("rows"), cols = a.axis("cols");
  // eps is an fp32 parameter: use the value the kernel sees.
  const double eps = static_cast<float>(a.value("eps"));
  for (int64_t r = 0; r < rows; ++r) {
    const double* row = x + r * cols;
    double mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) mean += row[c];
    mean /= double(cols);
    for (int64_t c = 0; c < cols; ++c) var += (row[c] - mean) * (row[c] - mean);
    const double inv = 1.0 / std::sqrt(var / double(cols) + eps);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = (row[c] - mean) * inv * gamma[c] + beta[c];
  }
}
