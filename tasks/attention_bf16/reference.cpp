#include <cmath>
#include <vector>

#include "ksearch/reference.h"

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double *q = a.in("q"), *k = a.in("k"), *v = a.in("v");
  double* o = a.out("o");
  const int64_t b = a.axis("b"), hq = a.axis("hq"), hkv = a.axis("hkv"), lq = a.axis("lq"), lk = a.axis("lk"),
                d = a.axis("d");
  const bool causal = a.value("causal") != 0;
  const double scale = 1.0 / std::sqrt(double(d));
#pragma omp parallel for collapse(2)
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t kh = h / (hq / hkv);
      const double* K = k + (bi * hkv + kh) * lk * d;
      const double* V = v + (bi * hkv + kh) * lk * d;
      std::vector<double> p(static_cast<size_t>(lk));
      for (int64_t i = 0; i < lq; ++i) {
        const double* Q = q + ((bi * hq + h) * lq + i) * d;
        double* O = o + ((bi * hq + h) * lq + i) * d;
        const int64_t last = causal ? i + lk - lq : lk - 1;
        double m = -INFINITY;
        for (int64_t j = 0; j <= last; ++j) {
          double s = 0;
          for (int64_t c = 0; c < d; ++c) s += Q[c] * K[j * d + c];
          p[size_t(j)] = s * scale;
          m = std::fmax(m, p[size_t(j)]);
        }
        double sum = 0;
        for (int64_t j = 0; j <= last; ++j) sum += (p[size_t(j)] = std::exp(p[size_t(j)] - m));
        for (int64_t c = 0; c < d; ++c) {
          double acc = 0;
          for (int64_t j = 0; j <= last; ++j) acc += p[size_t(j)] * V[j * d + c];
          O[c] = acc / sum;
        }
      }
    }
}
