#include <cmath>
#include <cstdint>
#include <cstring>

#include "ksearch/reference.h"

namespace {

// erfinv by Newton's method on erf (no std::erfinv), from a start that is within its basin on (-1, 1).
double erfinv(double x) {
  double y = x;
  for (int i = 0; i < 100; ++i) {
    const double step = (std::erf(y) - x) / (2.0 / std::sqrt(M_PI) * std::exp(-y * y));
    y -= step;
    if (std::fabs(step) < 1e-15) break;
  }
  return y;
}

uint32_t bits_of(double x) {
  const float f = float(x);
  uint32_t b;
  std::memcpy(&b, &f, sizeof b);
  return b;
}

uint32_t funnel_left(uint32_t lo, uint32_t hi, uint32_t n) { return uint32_t((((uint64_t(hi) << 32) | lo) << n) >> 32); }

uint32_t byte_perm(uint32_t x, uint32_t y, uint32_t s) {
  const uint64_t bytes = (uint64_t(y) << 32) | x;
  uint32_t r = 0;
  for (int i = 0; i < 4; ++i) r |= uint32_t((bytes >> (8 * ((s >> (4 * i)) & 7))) & 0xff) << (8 * i);
  return r;
}

}  // namespace

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  double* y = a.out("y");
  double* k = a.out("k");
  for (int64_t i = 0; i < a.axis("n"); ++i) {
    const double v = x[i];
    double whole;
    y[i] = erfinv(v) + std::sin(M_PI * v) * std::cos(M_PI * v) + std::fdim(v, 0.25) + 1.0 / std::hypot(v, 0.5) +
           std::sqrt(v * v + 1.0 + 4.0) + std::ldexp(v, 3) + std::modf(8.0 * v, &whole) + 1.0 / std::cbrt(v + 2.0) +
           std::nearbyint(4.0 * v);
    int exponent;
    std::frexp(v, &exponent);
    const int64_t scaled = std::lrint(v * 128.0), half = std::lrint(v * 64.0);
    const uint32_t b = bits_of(v);
    k[i] = double(scaled + exponent + (std::llabs(half - 7) + 1) + std::ilogb(v) + (funnel_left(b, 0x12345678u, 8) & 0xff) +
                  (byte_perm(b, 0xa1b2c3d4u, 0x5140u) & 0xffff) + std::min<uint32_t>(b & 0xff, 100u));
  }
}
