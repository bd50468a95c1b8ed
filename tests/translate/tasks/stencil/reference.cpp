#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  double* y = a.out("y");
  const int64_t rows = a.axis("rows"), cols = a.axis("cols");
  auto at = [&](int64_t r, int64_t c) { return r < 0 || r >= rows || c < 0 || c >= cols ? 0.0 : x[r * cols + c]; };
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      y[r * cols + c] = at(r - 1, c) + at(r + 1, c) + at(r, c - 1) + at(r, c + 1) - 4 * at(r, c);
}
