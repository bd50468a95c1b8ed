#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>

#include "ksearch/reference.h"

namespace {

uint32_t mix(uint32_t h, uint32_t v) { return (h << 5 | h >> 27) ^ v; }
uint32_t mix(uint32_t h, float v) {
  uint32_t bits;
  std::memcpy(&bits, &v, 4);
  return mix(h, bits);
}
uint32_t mix(uint32_t h, uint64_t v) { return mix(mix(h, uint32_t(v >> 32)), uint32_t(v)); }

// One SIMD video intrinsic by its name: __v<op><s|u|ss|us><2|4>, applied lane by lane in 64-bit arithmetic.
uint32_t video(const std::string& name, uint32_t a, uint32_t b) {
  const int count = name.back() - '0', bits = 32 / count;
  const int64_t mask = (int64_t(1) << bits) - 1, smin = -(int64_t(1) << (bits - 1)), smax = -smin - 1;
  const std::string op = name.substr(3, name.size() - 4);
  const bool comparison = op.rfind("cmp", 0) == 0 || op.rfind("set", 0) == 0;
  const bool is_signed = op == "abs" || op == "absss" || op == "neg" || op == "negss" || op == "addss" || op == "subss" ||
                         op == "maxs" || op == "mins" || op == "avgs" || op == "absdiffs" || op == "sads" ||
                         (comparison && op.size() == 6 && op.back() == 's');
  const auto lane = [&](uint32_t x, int i, bool s) {
    const int64_t v = (x >> (i * bits)) & mask;
    return s && v > smax ? v - (mask + 1) : v;
  };
  const auto saturate = [&](int64_t v, bool s) { return s ? std::min(std::max(v, smin), smax) : std::min(std::max(v, int64_t(0)), mask); };
  uint32_t result = 0;
  int64_t sad = 0;
  for (int i = 0; i < count; ++i) {
    const bool s = is_signed;
    const int64_t x = lane(a, i, s), y = lane(b, i, s);
    int64_t r;
    const std::string cmp = comparison ? op.substr(3, 2) : "";
    if (op == "add") r = x + y;
    else if (op == "sub") r = x - y;
    else if (op == "addss" || op == "addus") r = saturate(x + y, s);
    else if (op == "subss" || op == "subus") r = saturate(x - y, s);
    else if (op == "abs") r = x < 0 ? -x : x;
    else if (op == "absss") r = saturate(x < 0 ? -x : x, true);
    else if (op == "neg") r = -x;
    else if (op == "negss") r = saturate(-x, true);
    else if (op == "absdiffs" || op == "absdiffu") r = x > y ? x - y : y - x;
    else if (op == "sads" || op == "sadu") { sad += x > y ? x - y : y - x; r = 0; }
    else if (op == "avgs") { const int64_t t = x + y; r = (t + (t >= 0 ? 1 : 0)) >> 1; }
    else if (op == "avgu") r = (x + y + 1) >> 1;
    else if (op == "haddu") r = (x + y) >> 1;
    else if (op == "maxs" || op == "maxu") r = std::max(x, y);
    else if (op == "mins" || op == "minu") r = std::min(x, y);
    else if (!cmp.empty()) {
      const bool holds = cmp == "eq" ? x == y : cmp == "ne" ? x != y : cmp == "ge" ? x >= y : cmp == "gt" ? x > y : cmp == "le" ? x <= y : x < y;
      r = holds ? (op[0] == 'c' ? mask : 1) : 0;
    } else {
      throw std::runtime_error("unknown intrinsic " + name);
    }
    result |= uint32_t(r & mask) << (i * bits);
  }
  return op.rfind("sad", 0) == 0 ? uint32_t(sad) : result;
}

// The float nearest `approx`, moved until it is the one rounded in `direction` (-1 down, 1 up, 0 toward zero) from
// an exact value that `above(q)` compares with q: 1 where the exact value lies above q, 0 at it, -1 below.
template <class Above>
float directed(double approx, Above above, int direction) {
  float q = float(approx);
  if (direction == 0) direction = above(0.0f) > 0 ? -1 : 1;
  if (direction < 0) {
    while (above(q) < 0) q = std::nextafter(q, -INFINITY);
    while (above(std::nextafter(q, INFINITY)) >= 0) q = std::nextafter(q, INFINITY);
  } else {
    while (above(q) > 0) q = std::nextafter(q, INFINITY);
    while (above(std::nextafter(q, -INFINITY)) <= 0) q = std::nextafter(q, -INFINITY);
  }
  return q;
}
int sign(double v) { return v > 0 ? 1 : v < 0 ? -1 : 0; }
// integers compared exactly through long double (64-bit mantissa)
template <class I>
float directed_integer(I v, int direction) {
  return directed(double(v), [&](float q) { return sign(double((long double)v - (long double)q)); }, direction);
}

}  // namespace

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args args(raw);
  const double* a = args.in("a");
  const double* b = args.in("b");
  const double* f = args.in("f");
  const double* g = args.in("g");
  double* lanes = args.out("lanes");
  double* compares = args.out("compares");
  double* words = args.out("words");
  double* rounded = args.out("rounded");
  for (int64_t i = 0; i < args.axis("n"); ++i) {
    const int32_t ia = int32_t(a[i]), ib = int32_t(b[i]);
    const uint32_t ua = uint32_t(ia), ub = uint32_t(ib);
    const uint32_t uc = (ua & 0xffff00ffu) | (ub & 0x0000ff00u), ue = ua & 0x80808080u, uh = ua & 0x80008000u;
    uint32_t h = 0;
    h = mix(h, video("__vadd2", ua, ub));
    h = mix(h, video("__vadd2", ua, uc));
    h = mix(h, video("__vadd2", ue, uh));
    h = mix(h, video("__vsub2", ua, ub));
    h = mix(h, video("__vsub2", ua, uc));
    h = mix(h, video("__vsub2", ue, uh));
    h = mix(h, video("__vaddss2", ua, ub));
    h = mix(h, video("__vaddss2", ua, uc));
    h = mix(h, video("__vaddss2", ue, uh));
    h = mix(h, video("__vaddus2", ua, ub));
    h = mix(h, video("__vaddus2", ua, uc));
    h = mix(h, video("__vaddus2", ue, uh));
    h = mix(h, video("__vsubss2", ua, ub));
    h = mix(h, video("__vsubss2", ua, uc));
    h = mix(h, video("__vsubss2", ue, uh));
    h = mix(h, video("__vsubus2", ua, ub));
    h = mix(h, video("__vsubus2", ua, uc));
    h = mix(h, video("__vsubus2", ue, uh));
    h = mix(h, video("__vabs2", ua, 0u));
    h = mix(h, video("__vabs2", ue, 0u));
    h = mix(h, video("__vabs2", uh, 0u));
    h = mix(h, video("__vabsss2", ua, 0u));
    h = mix(h, video("__vabsss2", ue, 0u));
    h = mix(h, video("__vabsss2", uh, 0u));
    h = mix(h, video("__vneg2", ua, 0u));
    h = mix(h, video("__vneg2", ue, 0u));
    h = mix(h, video("__vneg2", uh, 0u));
    h = mix(h, video("__vnegss2", ua, 0u));
    h = mix(h, video("__vnegss2", ue, 0u));
    h = mix(h, video("__vnegss2", uh, 0u));
    h = mix(h, video("__vabsdiffs2", ua, ub));
    h = mix(h, video("__vabsdiffs2", ua, uc));
    h = mix(h, video("__vabsdiffs2", ue, uh));
    h = mix(h, video("__vabsdiffu2", ua, ub));
    h = mix(h, video("__vabsdiffu2", ua, uc));
    h = mix(h, video("__vabsdiffu2", ue, uh));
    h = mix(h, video("__vsads2", ua, ub));
    h = mix(h, video("__vsads2", ua, uc));
    h = mix(h, video("__vsads2", ue, uh));
    h = mix(h, video("__vsadu2", ua, ub));
    h = mix(h, video("__vsadu2", ua, uc));
    h = mix(h, video("__vsadu2", ue, uh));
    h = mix(h, video("__vavgs2", ua, ub));
    h = mix(h, video("__vavgs2", ua, uc));
    h = mix(h, video("__vavgs2", ue, uh));
    h = mix(h, video("__vavgu2", ua, ub));
    h = mix(h, video("__vavgu2", ua, uc));
    h = mix(h, video("__vavgu2", ue, uh));
    h = mix(h, video("__vhaddu2", ua, ub));
    h = mix(h, video("__vhaddu2", ua, uc));
    h = mix(h, video("__vhaddu2", ue, uh));
    h = mix(h, video("__vmaxs2", ua, ub));
    h = mix(h, video("__vmaxs2", ua, uc));
    h = mix(h, video("__vmaxs2", ue, uh));
    h = mix(h, video("__vmaxu2", ua, ub));
    h = mix(h, video("__vmaxu2", ua, uc));
    h = mix(h, video("__vmaxu2", ue, uh));
    h = mix(h, video("__vmins2", ua, ub));
    h = mix(h, video("__vmins2", ua, uc));
    h = mix(h, video("__vmins2", ue, uh));
    h = mix(h, video("__vminu2", ua, ub));
    h = mix(h, video("__vminu2", ua, uc));
    h = mix(h, video("__vminu2", ue, uh));
    h = mix(h, video("__vadd4", ua, ub));
    h = mix(h, video("__vadd4", ua, uc));
    h = mix(h, video("__vadd4", ue, uh));
    h = mix(h, video("__vsub4", ua, ub));
    h = mix(h, video("__vsub4", ua, uc));
    h = mix(h, video("__vsub4", ue, uh));
    h = mix(h, video("__vaddss4", ua, ub));
    h = mix(h, video("__vaddss4", ua, uc));
    h = mix(h, video("__vaddss4", ue, uh));
    h = mix(h, video("__vaddus4", ua, ub));
    h = mix(h, video("__vaddus4", ua, uc));
    h = mix(h, video("__vaddus4", ue, uh));
    h = mix(h, video("__vsubss4", ua, ub));
    h = mix(h, video("__vsubss4", ua, uc));
    h = mix(h, video("__vsubss4", ue, uh));
    h = mix(h, video("__vsubus4", ua, ub));
    h = mix(h, video("__vsubus4", ua, uc));
    h = mix(h, video("__vsubus4", ue, uh));
    h = mix(h, video("__vabs4", ua, 0u));
    h = mix(h, video("__vabs4", ue, 0u));
    h = mix(h, video("__vabs4", uh, 0u));
    h = mix(h, video("__vabsss4", ua, 0u));
    h = mix(h, video("__vabsss4", ue, 0u));
    h = mix(h, video("__vabsss4", uh, 0u));
    h = mix(h, video("__vneg4", ua, 0u));
    h = mix(h, video("__vneg4", ue, 0u));
    h = mix(h, video("__vneg4", uh, 0u));
    h = mix(h, video("__vnegss4", ua, 0u));
    h = mix(h, video("__vnegss4", ue, 0u));
    h = mix(h, video("__vnegss4", uh, 0u));
    h = mix(h, video("__vabsdiffs4", ua, ub));
    h = mix(h, video("__vabsdiffs4", ua, uc));
    h = mix(h, video("__vabsdiffs4", ue, uh));
    h = mix(h, video("__vabsdiffu4", ua, ub));
    h = mix(h, video("__vabsdiffu4", ua, uc));
    h = mix(h, video("__vabsdiffu4", ue, uh));
    h = mix(h, video("__vsads4", ua, ub));
    h = mix(h, video("__vsads4", ua, uc));
    h = mix(h, video("__vsads4", ue, uh));
    h = mix(h, video("__vsadu4", ua, ub));
    h = mix(h, video("__vsadu4", ua, uc));
    h = mix(h, video("__vsadu4", ue, uh));
    h = mix(h, video("__vavgs4", ua, ub));
    h = mix(h, video("__vavgs4", ua, uc));
    h = mix(h, video("__vavgs4", ue, uh));
    h = mix(h, video("__vavgu4", ua, ub));
    h = mix(h, video("__vavgu4", ua, uc));
    h = mix(h, video("__vavgu4", ue, uh));
    h = mix(h, video("__vhaddu4", ua, ub));
    h = mix(h, video("__vhaddu4", ua, uc));
    h = mix(h, video("__vhaddu4", ue, uh));
    h = mix(h, video("__vmaxs4", ua, ub));
    h = mix(h, video("__vmaxs4", ua, uc));
    h = mix(h, video("__vmaxs4", ue, uh));
    h = mix(h, video("__vmaxu4", ua, ub));
    h = mix(h, video("__vmaxu4", ua, uc));
    h = mix(h, video("__vmaxu4", ue, uh));
    h = mix(h, video("__vmins4", ua, ub));
    h = mix(h, video("__vmins4", ua, uc));
    h = mix(h, video("__vmins4", ue, uh));
    h = mix(h, video("__vminu4", ua, ub));
    h = mix(h, video("__vminu4", ua, uc));
    h = mix(h, video("__vminu4", ue, uh));
    lanes[i] = double(int32_t(h));
    h = 0;
    h = mix(h, video("__vcmpeq2", ua, ub));
    h = mix(h, video("__vcmpeq2", ua, uc));
    h = mix(h, video("__vcmpeq2", ue, uh));
    h = mix(h, video("__vseteq2", ua, ub));
    h = mix(h, video("__vseteq2", ua, uc));
    h = mix(h, video("__vseteq2", ue, uh));
    h = mix(h, video("__vcmpne2", ua, ub));
    h = mix(h, video("__vcmpne2", ua, uc));
    h = mix(h, video("__vcmpne2", ue, uh));
    h = mix(h, video("__vsetne2", ua, ub));
    h = mix(h, video("__vsetne2", ua, uc));
    h = mix(h, video("__vsetne2", ue, uh));
    h = mix(h, video("__vcmpges2", ua, ub));
    h = mix(h, video("__vcmpges2", ua, uc));
    h = mix(h, video("__vcmpges2", ue, uh));
    h = mix(h, video("__vsetges2", ua, ub));
    h = mix(h, video("__vsetges2", ua, uc));
    h = mix(h, video("__vsetges2", ue, uh));
    h = mix(h, video("__vcmpgeu2", ua, ub));
    h = mix(h, video("__vcmpgeu2", ua, uc));
    h = mix(h, video("__vcmpgeu2", ue, uh));
    h = mix(h, video("__vsetgeu2", ua, ub));
    h = mix(h, video("__vsetgeu2", ua, uc));
    h = mix(h, video("__vsetgeu2", ue, uh));
    h = mix(h, video("__vcmpgts2", ua, ub));
    h = mix(h, video("__vcmpgts2", ua, uc));
    h = mix(h, video("__vcmpgts2", ue, uh));
    h = mix(h, video("__vsetgts2", ua, ub));
    h = mix(h, video("__vsetgts2", ua, uc));
    h = mix(h, video("__vsetgts2", ue, uh));
    h = mix(h, video("__vcmpgtu2", ua, ub));
    h = mix(h, video("__vcmpgtu2", ua, uc));
    h = mix(h, video("__vcmpgtu2", ue, uh));
    h = mix(h, video("__vsetgtu2", ua, ub));
    h = mix(h, video("__vsetgtu2", ua, uc));
    h = mix(h, video("__vsetgtu2", ue, uh));
    h = mix(h, video("__vcmples2", ua, ub));
    h = mix(h, video("__vcmples2", ua, uc));
    h = mix(h, video("__vcmples2", ue, uh));
    h = mix(h, video("__vsetles2", ua, ub));
    h = mix(h, video("__vsetles2", ua, uc));
    h = mix(h, video("__vsetles2", ue, uh));
    h = mix(h, video("__vcmpleu2", ua, ub));
    h = mix(h, video("__vcmpleu2", ua, uc));
    h = mix(h, video("__vcmpleu2", ue, uh));
    h = mix(h, video("__vsetleu2", ua, ub));
    h = mix(h, video("__vsetleu2", ua, uc));
    h = mix(h, video("__vsetleu2", ue, uh));
    h = mix(h, video("__vcmplts2", ua, ub));
    h = mix(h, video("__vcmplts2", ua, uc));
    h = mix(h, video("__vcmplts2", ue, uh));
    h = mix(h, video("__vsetlts2", ua, ub));
    h = mix(h, video("__vsetlts2", ua, uc));
    h = mix(h, video("__vsetlts2", ue, uh));
    h = mix(h, video("__vcmpltu2", ua, ub));
    h = mix(h, video("__vcmpltu2", ua, uc));
    h = mix(h, video("__vcmpltu2", ue, uh));
    h = mix(h, video("__vsetltu2", ua, ub));
    h = mix(h, video("__vsetltu2", ua, uc));
    h = mix(h, video("__vsetltu2", ue, uh));
    h = mix(h, video("__vcmpeq4", ua, ub));
    h = mix(h, video("__vcmpeq4", ua, uc));
    h = mix(h, video("__vcmpeq4", ue, uh));
    h = mix(h, video("__vseteq4", ua, ub));
    h = mix(h, video("__vseteq4", ua, uc));
    h = mix(h, video("__vseteq4", ue, uh));
    h = mix(h, video("__vcmpne4", ua, ub));
    h = mix(h, video("__vcmpne4", ua, uc));
    h = mix(h, video("__vcmpne4", ue, uh));
    h = mix(h, video("__vsetne4", ua, ub));
    h = mix(h, video("__vsetne4", ua, uc));
    h = mix(h, video("__vsetne4", ue, uh));
    h = mix(h, video("__vcmpges4", ua, ub));
    h = mix(h, video("__vcmpges4", ua, uc));
    h = mix(h, video("__vcmpges4", ue, uh));
    h = mix(h, video("__vsetges4", ua, ub));
    h = mix(h, video("__vsetges4", ua, uc));
    h = mix(h, video("__vsetges4", ue, uh));
    h = mix(h, video("__vcmpgeu4", ua, ub));
    h = mix(h, video("__vcmpgeu4", ua, uc));
    h = mix(h, video("__vcmpgeu4", ue, uh));
    h = mix(h, video("__vsetgeu4", ua, ub));
    h = mix(h, video("__vsetgeu4", ua, uc));
    h = mix(h, video("__vsetgeu4", ue, uh));
    h = mix(h, video("__vcmpgts4", ua, ub));
    h = mix(h, video("__vcmpgts4", ua, uc));
    h = mix(h, video("__vcmpgts4", ue, uh));
    h = mix(h, video("__vsetgts4", ua, ub));
    h = mix(h, video("__vsetgts4", ua, uc));
    h = mix(h, video("__vsetgts4", ue, uh));
    h = mix(h, video("__vcmpgtu4", ua, ub));
    h = mix(h, video("__vcmpgtu4", ua, uc));
    h = mix(h, video("__vcmpgtu4", ue, uh));
    h = mix(h, video("__vsetgtu4", ua, ub));
    h = mix(h, video("__vsetgtu4", ua, uc));
    h = mix(h, video("__vsetgtu4", ue, uh));
    h = mix(h, video("__vcmples4", ua, ub));
    h = mix(h, video("__vcmples4", ua, uc));
    h = mix(h, video("__vcmples4", ue, uh));
    h = mix(h, video("__vsetles4", ua, ub));
    h = mix(h, video("__vsetles4", ua, uc));
    h = mix(h, video("__vsetles4", ue, uh));
    h = mix(h, video("__vcmpleu4", ua, ub));
    h = mix(h, video("__vcmpleu4", ua, uc));
    h = mix(h, video("__vcmpleu4", ue, uh));
    h = mix(h, video("__vsetleu4", ua, ub));
    h = mix(h, video("__vsetleu4", ua, uc));
    h = mix(h, video("__vsetleu4", ue, uh));
    h = mix(h, video("__vcmplts4", ua, ub));
    h = mix(h, video("__vcmplts4", ua, uc));
    h = mix(h, video("__vcmplts4", ue, uh));
    h = mix(h, video("__vsetlts4", ua, ub));
    h = mix(h, video("__vsetlts4", ua, uc));
    h = mix(h, video("__vsetlts4", ue, uh));
    h = mix(h, video("__vcmpltu4", ua, ub));
    h = mix(h, video("__vcmpltu4", ua, uc));
    h = mix(h, video("__vcmpltu4", ue, uh));
    h = mix(h, video("__vsetltu4", ua, ub));
    h = mix(h, video("__vsetltu4", ua, uc));
    h = mix(h, video("__vsetltu4", ue, uh));
    compares[i] = double(int32_t(h));
    const int64_t wide = int64_t(uint64_t(ua) << 32 | ub), other = int64_t(uint64_t(ub) << 32 | uc);
    uint32_t w = 0;
    w = mix(w, uint32_t(int32_t((int64_t(ia) + ib) >> 1)));
    w = mix(w, uint32_t(int32_t((int64_t(ia) + ib + 1) >> 1)));
    w = mix(w, uint32_t((uint64_t(ua) + ub) >> 1));
    w = mix(w, uint32_t((uint64_t(ua) + ub + 1) >> 1));
    w = mix(w, uint64_t(int64_t((__int128)wide * other >> 64)));
    w = mix(w, uint64_t((unsigned __int128)uint64_t(wide) * uint64_t(other) >> 64));
    uint64_t reversed = 0;
    for (int bit = 0; bit < 64; ++bit) reversed |= ((uint64_t(wide) >> bit) & 1) << (63 - bit);
    w = mix(w, reversed);
    words[i] = double(int32_t(w));
    const float x = float(f[i]), y = float(g[i]), m = std::fabs(x);
    const double dx = x, dy = y, dm = m;
    uint32_t r = 0;
    // sums and products of these floats are exact in double (their exponents lie within 29 of each other)
    for (int d : {-1, 1, 0}) r = mix(r, directed(dx + dy, [&](float q) { return sign(dx + dy - q); }, d));
    for (int d : {-1, 1, 0}) r = mix(r, directed(dx - dy, [&](float q) { return sign(dx - dy - q); }, d));
    for (int d : {-1, 1, 0}) r = mix(r, directed(dx * dy, [&](float q) { return sign(dx * dy - q); }, d));
    // x / y above q where x - q y (exact in double) has y's sign
    for (int d : {-1, 1, 0}) r = mix(r, directed(dx / dy, [&](float q) { return sign(dx - double(q) * dy) * sign(dy); }, d));
    for (int d : {-1, 1, 0}) r = mix(r, directed(1.0 / dy, [&](float q) { return sign(1.0 - double(q) * dy) * sign(dy); }, d));
    for (int d : {-1, 1, 0}) r = mix(r, directed(std::sqrt(dm), [&](float q) { return q < 0 ? 1 : sign(dm - double(q) * q); }, d));
    for (int d : {-1, 1, 0}) r = mix(r, directed_integer(ia, d));
    for (int d : {-1, 1, 0}) r = mix(r, directed_integer(ub, d));
    for (int d : {-1, 1, 0}) r = mix(r, directed_integer(wide, d));
    r = mix(r, float(wide));
    for (int d : {-1, 1, 0}) r = mix(r, directed_integer(uint64_t(other), d));
    r = mix(r, float(uint64_t(other)));
    const float big = x * 1e6f, big_m = m * 1e6f;
    r = mix(r, uint64_t(int64_t(std::floor(big))));
    r = mix(r, uint64_t(int64_t(std::ceil(big))));
    r = mix(r, uint64_t(int64_t(std::nearbyint(big))));
    r = mix(r, uint64_t(int64_t(std::trunc(big))));
    r = mix(r, uint64_t(std::floor(big_m)));
    r = mix(r, uint64_t(std::ceil(big_m)));
    r = mix(r, uint32_t(std::floor(m)));
    r = mix(r, uint32_t(std::ceil(m)));
    rounded[i] = double(int32_t(r));
  }
}
