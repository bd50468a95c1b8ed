#include <algorithm>
#include <functional>
#include <vector>

#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  double* y = a.out("y");
  const int64_t rows = a.axis("rows"), cols = a.axis("cols");
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<double> row(x + r * cols, x + (r + 1) * cols);
    std::partial_sort(row.begin(), row.begin() + 4, row.end(), std::greater<double>());
    std::copy(row.begin(), row.begin() + 4, y + r * 4);
  }
}
