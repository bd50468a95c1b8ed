#include <vector>

#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* A = a.in("A");
  const double* B = a.in("B");
  double* C = a.out("C");
  const int64_t m = a.axis("m"), n = a.axis("n"), k = a.axis("k");
#pragma omp parallel for
  for (int64_t i = 0; i < m; ++i) {
    std::vector<double> row(size_t(n), 0.0);
    for (int64_t p = 0; p < k; ++p) {
      const double aip = A[i * k + p];
      for (int64_t j = 0; j < n; ++j) row[size_t(j)] += aip * B[p * n + j];
    }
    for (int64_t j = 0; j < n; ++j) C[i * n + j] = row[size_t(j)];
  }
}
