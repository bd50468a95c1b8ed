#include <cmath>
#include <cstdint>

#include "ksearch/reference.h"

namespace {

// erfcinv by bisection on erfc (decreasing), to double precision; y in (0, 2).
double erfcinv(double y) {
  double lo = -10.0, hi = 10.0;  // erfc(-10) = 2 and erfc(10) = 2e-45 in double
  for (int i = 0; i < 200; ++i) {
    const double mid = 0.5 * (lo + hi);
    (std::erfc(mid) > y ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

// I0 and I1 for any sign of x (std::cyl_bessel_i takes x >= 0): I0 is even, I1 odd.
double bessel_i(int order, double x) {
  const double v = std::cyl_bessel_i(double(order), std::fabs(x));
  return order == 1 && x < 0 ? -v : v;
}

}  // namespace

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  const double* p = a.in("p");
  double* lgamma = a.out("lgamma");
  double* tgamma = a.out("tgamma");
  double* bessel_j = a.out("bessel_j");
  double* bessel_y = a.out("bessel_y");
  double* bessel_i_out = a.out("bessel_i");
  double* inverse = a.out("inverse");
  double* erfcx = a.out("erfcx");
  double* exact = a.out("exact");
  double* k = a.out("k");
  for (int64_t i = 0; i < a.axis("n"); ++i) {
    const double v = x[i], q = p[i], m = std::fabs(v);
    lgamma[i] = std::lgamma(v);
    tgamma[i] = std::tgamma(v);
    bessel_j[i] = ::j0(v) + ::j1(v) + ::jn(3, v) + ::jn(7, v);
    bessel_y[i] = ::y0(m) + ::y1(m) + ::yn(2, m) + ::yn(5, m + 4.0);
    bessel_i_out[i] = bessel_i(0, v) + bessel_i(1, v);
    inverse[i] = erfcinv(q) - std::sqrt(2.0) * erfcinv(2.0 * (0.5 * q));
    erfcx[i] = std::exp(v * v) * std::erfc(v);
    int quotient = 0;
    const double scaled = v * 1024.0;  // exact in float
    exact[i] = std::remainder(v, double(1.75f)) + std::remquo(scaled, double(0.3f), &quotient) + std::logb(v) +
               std::scalbln(v, 5) + std::sqrt(v * v + 1.0 + 4.0);
    k[i] = double(quotient % 8 + (std::isnan(std::nan("")) ? 10 : 0));
  }
}
