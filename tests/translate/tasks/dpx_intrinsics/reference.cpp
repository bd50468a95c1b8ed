#include <algorithm>
#include <cstdint>
#include <string>

#include "ksearch/reference.h"

namespace {

uint32_t mix(uint32_t h, uint32_t v) { return (h << 5 | h >> 27) ^ v; }

// One DPX operation on values x, y, z of `bits` bits (signed or not): max3/min3, addmax/addmin (x + y wrapping, then
// with z), max/min of two, each optionally floored at 0 (_relu).
int64_t dpx(const std::string& op, int64_t x, int64_t y, int64_t z, int bits, bool is_signed) {
  const auto wrap = [&](int64_t v) {
    const int64_t m = int64_t(1) << bits;
    v &= m - 1;
    return is_signed && v >= m / 2 ? v - m : v;
  };
  const bool relu = op.size() > 5 && op.substr(op.size() - 5) == "_relu";
  const std::string base = relu ? op.substr(0, op.size() - 5) : op;
  int64_t r;
  if (base == "max3") r = std::max({x, y, z});
  else if (base == "min3") r = std::min({x, y, z});
  else if (base == "addmax") r = std::max(wrap(x + y), z);
  else if (base == "addmin") r = std::min(wrap(x + y), z);
  else if (base == "max") r = std::max(x, y);
  else r = std::min(x, y);
  return relu ? std::max<int64_t>(r, 0) : r;
}
uint32_t v32(const std::string& op, const char* sign, uint32_t a, uint32_t b, uint32_t c) {
  const bool s = sign[0] == 's';
  const auto value = [&](uint32_t w) { return s ? int64_t(int32_t(w)) : int64_t(w); };
  return uint32_t(dpx(op, value(a), value(b), value(c), 32, s));
}
uint32_t v16(const std::string& op, const char* sign, uint32_t a, uint32_t b, uint32_t c) {
  const bool s = sign[0] == 's';
  uint32_t out = 0;
  for (int lane = 0; lane < 2; ++lane) {
    const auto value = [&](uint32_t w) {
      const uint16_t h = uint16_t(w >> (16 * lane));
      return s ? int64_t(int16_t(h)) : int64_t(h);
    };
    out |= uint32_t(uint16_t(dpx(op, value(a), value(b), value(c), 16, s))) << (16 * lane);
  }
  return out;
}
// The kernel's three-operand and _relu calls in its order, each in the 32-bit form, then the 16x2 one.
struct DpxCall {
  const char* op;
  const char* sign;
  bool two_operands;  // max_relu, min_relu: no z
};
constexpr DpxCall kCalls[] = {{"max3", "s", false},        {"addmax", "s", false},     {"max3", "u", false},
                              {"addmax", "u", false},      {"max_relu", "s", true},    {"max3_relu", "s", false},
                              {"addmax_relu", "s", false}, {"min3", "s", false},       {"addmin", "s", false},
                              {"min3", "u", false},        {"addmin", "u", false},     {"min_relu", "s", true},
                              {"min3_relu", "s", false},   {"addmin_relu", "s", false}};
int16_t lane_s(uint32_t w, int lane) { return int16_t(uint16_t(w >> (16 * lane))); }
uint16_t lane_u(uint32_t w, int lane) { return uint16_t(w >> (16 * lane)); }

}  // namespace

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args args(raw);
  const double* a = args.in("a");
  const double* b = args.in("b");
  const double* c = args.in("c");
  double* words = args.out("words");
  double* preds = args.out("preds");
  for (int64_t i = 0; i < args.axis("n"); ++i) {
    const uint32_t ua = uint32_t(int32_t(a[i])), ub = uint32_t(int32_t(b[i]));
    const uint32_t uc = (uint32_t(int32_t(c[i])) & 0xffffu) | (ua & 0xffff0000u);
    uint32_t h = 0;
    for (const DpxCall& k : kCalls) {
      const uint32_t z = k.two_operands ? 0 : uc;
      h = mix(h, v32(k.op, k.sign, ua, ub, z));
      h = mix(h, v16(k.op, k.sign, ua, ub, z));
    }
    words[i] = double(int32_t(h));
    const int32_t sa = int32_t(ua), sb = int32_t(ub), sc = int32_t(uc);
    h = mix(h, uint32_t(std::max(sa, sc)));
    h = mix(h, std::max(ub, uc));
    h = mix(h, uint32_t(std::min(sc, sb)));
    h = mix(h, std::min(ua, ub));
    h = mix(h, v16("max", "s", ua, uc, 0));
    h = mix(h, v16("min", "s", uc, ub, 0));
    h = mix(h, v16("max", "u", ub, ua, 0));
    const uint32_t bits = uint32_t(sa >= sc) | uint32_t(ub >= uc) << 1 | uint32_t(sc <= sb) << 2 | uint32_t(ua <= ub) << 3 |
                          uint32_t(lane_s(ua, 1) >= lane_s(uc, 1)) << 4 | uint32_t(lane_s(ua, 0) >= lane_s(uc, 0)) << 5 |
                          uint32_t(lane_s(uc, 1) <= lane_s(ub, 1)) << 6 | uint32_t(lane_s(uc, 0) <= lane_s(ub, 0)) << 7 |
                          uint32_t(lane_u(ub, 1) >= lane_u(ua, 1)) << 8 | uint32_t(lane_u(ub, 0) >= lane_u(ua, 0)) << 9;
    preds[i] = double(int32_t(h ^ bits));
  }
}
