#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ksearch/reference.h"

namespace {

// v rounded to a float of `mantissa` stored bits and `exponent` bits (half: 10, 5; bfloat16: 7, 8), as its bits:
// direction 2 to nearest even, 0 toward zero, -1 down, 1 up. v must be exact in double (it is: halves, floats,
// integers below 2^53).
uint16_t narrow(double v, int mantissa, int exponent, int direction) {
  const bool negative = std::signbit(v);
  const double a = std::fabs(v);
  const int bias = (1 << (exponent - 1)) - 1, emin = 1 - bias;
  int e = 0;
  std::frexp(a, &e);
  const int quantum = std::max(e - 1, emin) - mantissa;  // the value of the last stored bit at a's binade
  const double scaled = std::ldexp(a, -quantum), low = std::floor(scaled), fraction = scaled - low;
  const bool away = direction == 2 ? fraction > 0.5 || (fraction == 0.5 && std::fmod(low, 2.0) == 1.0)
                                   : fraction > 0 && direction != 0 && (direction > 0) != negative;
  const double magnitude = std::ldexp(low + (away ? 1 : 0), quantum);
  const double largest = std::ldexp(2.0 - std::ldexp(1.0, -mantissa), bias);
  const uint16_t sign = negative ? uint16_t(1u << 15) : 0;
  const uint16_t infinity = uint16_t(((1u << exponent) - 1) << mantissa);
  // past the largest float: infinity when rounding to nearest or outward (up from a positive value, down from a
  // negative one), else the largest
  const bool outward = direction == 2 || (direction != 0 && (direction > 0) != negative);
  if (magnitude > largest) return sign | (outward ? infinity : uint16_t(infinity - 1));
  if (magnitude == 0) return sign;
  int me = 0;
  std::frexp(magnitude, &me);
  if (me - 1 < emin) return sign | uint16_t(std::ldexp(magnitude, -(emin - mantissa)));  // subnormal
  const double significand = std::ldexp(magnitude, -(me - 1)) - 1.0;
  return sign | uint16_t((me - 1 + bias) << mantissa) | uint16_t(std::ldexp(significand, mantissa));
}
uint16_t half_bits(double v, int direction = 2) { return narrow(v, 10, 5, direction); }
uint16_t bfloat_bits(double v, int direction = 2) { return narrow(v, 7, 8, direction); }
double from_half_bits(uint16_t h) {
  const int e = (h >> 10) & 31, m = h & 1023;
  const double magnitude = e == 0 ? std::ldexp(m, -24) : e == 31 ? INFINITY : std::ldexp(1024 + m, e - 25);
  return h >> 15 ? -magnitude : magnitude;
}
double round_half(double v) { return from_half_bits(half_bits(v)); }

uint32_t mix(uint32_t h, uint32_t v) { return (h << 5 | h >> 27) ^ v; }
double clamp01(double v) { return std::min(std::max(v, 0.0), 1.0); }
double relu(double v) { return std::max(v, 0.0); }

}  // namespace

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args args(raw);
  const double* a = args.in("a");
  const double* b = args.in("b");
  const double* c = args.in("c");
  const double* f = args.in("f");
  const double* k = args.in("k");
  double* arith = args.out("arith");
  double* exps = args.out("exps");
  double* trig = args.out("trig");
  double* bits = args.out("bits");
  for (int64_t i = 0; i < args.axis("n"); ++i) {
    const double x = a[i], y = b[i], z = c[i];
    const auto r = round_half;
    // __hcmadd(xy, yz, zx) as CUDA documents it: two half fmas per part
    const double real = r(-y * z + r(x * y + z)), imag = r(y * y + r(x * z + x));
    arith[i] = clamp01(r(x + y)) + clamp01(r(x - y)) + clamp01(r(x * y)) + clamp01(r(x * y + z)) + relu(r(x * y + z)) +
               r(x + y) + r(x * y) + clamp01(r(x + y)) + clamp01(r(y + z)) + relu(r(x * y + z)) + relu(r(y * z + x)) +
               std::max(x, z) + std::max(y, x) + std::min(x, z) + std::min(y, x) + real + imag;
    const double m = r(std::fabs(x) + 1.0);
    exps[i] = r(std::exp2(x)) + r(std::log2(m)) + r(std::log10(m)) + r(std::pow(10.0, x * 0.25)) + r(std::exp2(x * 0.5)) +
              r(std::exp2(y * 0.5)) + 2 * r(std::log2(m));
    trig[i] = r(std::sin(x)) + r(std::cos(x)) + r(std::tanh(x)) + r(std::sin(x)) + r(std::sin(y)) + r(std::cos(y)) +
              r(std::cos(z));
    const float v = float(f[i]), small = v * 0x1p-20f;
    const int32_t w = int32_t(k[i]);
    const int64_t wide = int64_t(w) * (int64_t(1) << 20);
    const uint32_t nan_marker = 0x7fff;
    uint32_t h = 0;
    for (int d : {0, -1, 1}) h = mix(h, half_bits(v, d));
    for (int d : {0, -1, 1}) h = mix(h, half_bits(small, d));
    for (int d : {0, -1, 1}) h = mix(h, bfloat_bits(v, d));
    for (int d : {2, 0, -1, 1}) h = mix(h, half_bits(w, d));
    h = mix(h, half_bits(int16_t(w)));
    h = mix(h, half_bits(uint16_t(w), -1));
    h = mix(h, bfloat_bits(w));
    h = mix(h, bfloat_bits(uint32_t(w), -1));
    h = mix(h, bfloat_bits(double(wide)));
    h = mix(h, bfloat_bits(double(wide), 1));
    h = mix(h, half_bits(w & 0xffff, 0));
    h = mix(h, uint32_t(int32_t(std::nearbyint(x))));
    h = mix(h, uint32_t(int32_t(std::floor(x))));
    h = mix(h, uint32_t(int32_t(std::ceil(x))));
    h = mix(h, uint32_t(int32_t(std::trunc(x))));
    h = mix(h, uint32_t(int64_t(std::floor(r(x * 100.0)))));
    h = mix(h, uint32_t(uint16_t(std::trunc(m))));
    const uint16_t vb = bfloat_bits(v);
    const double v_bfloat = double(int16_t(vb) < 0 ? -1 : 1) * std::ldexp(double((vb & 0x7f) | 0x80), ((vb >> 7) & 0xff) - 134);
    h = mix(h, uint32_t(int32_t(std::nearbyint(v_bfloat))));
    const float thousand = small * 1000.0f;
    const uint16_t tb = bfloat_bits(thousand);
    const int te = (tb >> 7) & 0xff;
    const double t_bfloat = te == 0 ? 0.0 : double(tb >> 15 ? -1 : 1) * std::ldexp(double((tb & 0x7f) | 0x80), te - 134);
    h = mix(h, uint32_t(int32_t(int16_t(std::floor(t_bfloat)))));
    const bool ge_xz = x >= z;
    h = mix(h, uint32_t(x == y) | 1u << 1 | 0u << 2 | uint32_t(!(x < y)) << 3 | 1u << 4 | uint32_t(!(x > y)) << 5 |
                   1u << 6 | uint32_t(x != z && y != x) << 7 | uint32_t(ge_xz && y >= x) << 8 |
                   uint32_t(x <= z && y <= x) << 9 | 1u << 10 | 0u << 11);
    h = mix(h, (x == z ? 0xffffu : 0u) | 0xffff0000u);
    h = mix(h, (x < z ? 0xffffu : 0u) | (y < x ? 0xffff0000u : 0u));
    h = mix(h, ge_xz ? 0xffffu : 0u);
    h = mix(h, 0x3c000000u);
    h = mix(h, nan_marker);
    h = mix(h, half_bits(std::max(x, y)));
    h = mix(h, nan_marker);
    h = mix(h, uint32_t(half_bits(x)) | uint32_t(half_bits(z)) << 16);
    h = mix(h, uint32_t(half_bits(y)) | uint32_t(half_bits(x)) << 16);
    h = mix(h, uint32_t(!(x < z) ? 0x3c00u : 0u) | 0x3c000000u);
    bits[i] = double(int32_t(h));
  }
}
