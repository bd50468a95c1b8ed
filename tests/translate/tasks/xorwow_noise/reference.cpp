#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ksearch/reference.h"

namespace {

// cuRAND's XORWOW as its documentation defines it: Marsaglia's xorshift of five words beside a Weyl sequence d;
// curand_init salts the seed into the words and skips subsequence * 2^67 and then offset words. The skips here
// multiply by powers of the xorshift's matrix over GF(2), M^(2^k) by repeated squaring (the way cuRAND's tables are
// made), independently of the port's polynomial jumps.
struct Matrix {
  uint32_t rows[160][5];  // row b: the image of the state with only bit b set (word b / 32)

  void apply(uint32_t v[5]) const {
    uint32_t r[5] = {0, 0, 0, 0, 0};
    for (int b = 0; b < 160; ++b)
      if (v[b / 32] >> (b % 32) & 1)
        for (int k = 0; k < 5; ++k) r[k] ^= rows[b][k];
    std::memcpy(v, r, sizeof r);
  }
};

void step(uint32_t v[5]) {
  const uint32_t t = v[0] ^ (v[0] >> 2);
  v[0] = v[1];
  v[1] = v[2];
  v[2] = v[3];
  v[3] = v[4];
  v[4] = (v[4] ^ (v[4] << 4)) ^ (t ^ (t << 1));
}

// M^(2^k) for k < 131 (skips of up to 2^64 words, and of up to 2^64 subsequences of 2^67 words).
const std::vector<Matrix>& powers() {
  static const std::vector<Matrix> p = [] {
    std::vector<Matrix> m(131);
    for (int b = 0; b < 160; ++b) {
      uint32_t v[5] = {0, 0, 0, 0, 0};
      v[b / 32] = 1u << (b % 32);
      step(v);
      std::memcpy(m[0].rows[b], v, sizeof v);
    }
    for (size_t k = 1; k < m.size(); ++k)
      for (int b = 0; b < 160; ++b) {
        std::memcpy(m[k].rows[b], m[k - 1].rows[b], sizeof m[k].rows[b]);
        m[k - 1].apply(m[k].rows[b]);
      }
    return m;
  }();
  return p;
}

struct Xorwow {
  uint32_t d, v[5];
  int extra_kind = 0;
  double extra = 0;

  void jump(uint64_t n, int first_power) {
    for (int k = 0; n != 0; ++k, n >>= 1)
      if (n & 1) powers()[size_t(first_power + k)].apply(v);
  }
  void skip(uint64_t n) {
    jump(n, 0);
    d += 362437u * uint32_t(n);
  }
  void skip_sequences(uint64_t n) { jump(n, 67); }
  Xorwow(uint64_t seed, uint64_t subsequence, uint64_t offset) {
    const uint32_t t0 = 1099087573u * (uint32_t(seed) ^ 0xaad26b49u);
    const uint32_t t1 = 2591861531u * (uint32_t(seed >> 32) ^ 0xf7dcefddu);
    d = 6615241u + t1 + t0;
    v[0] = 123456789u + t0;
    v[1] = 362436069u ^ t0;
    v[2] = 521288629u + t1;
    v[3] = 88675123u ^ t1;
    v[4] = 5783321u + t0;
    skip_sequences(subsequence);
    skip(offset);
  }
  uint32_t next() {
    step(v);
    d += 362437u;
    return v[4] + d;
  }
};

float unit(uint32_t x) { return std::fmaf(float(x), 2.3283064e-10f, 2.3283064e-10f / 2.0f); }
void box_muller(uint32_t x, uint32_t y, double out[2]) {
  const float u = unit(x), v = std::fmaf(float(y), 2.3283064e-10f * 6.2831855f, 2.3283064e-10f * 6.2831855f / 2.0f);
  const double s = std::sqrt(-2.0 * std::log(double(u)));
  out[0] = s * std::sin(double(v));
  out[1] = s * std::cos(double(v));
}
// curand_normal (kind 1) and curand_log_normal (kind 2): two words give two values, the second kept for the next
// call of the same kind.
double normal_kind(Xorwow& g, int kind, double mean, double stddev) {
  if (g.extra_kind != kind) {
    const uint32_t x = g.next(), y = g.next();
    double v[2];
    box_muller(x, y, v);
    if (kind == 2) v[0] = std::exp(mean + stddev * v[0]), v[1] = std::exp(mean + stddev * v[1]);
    g.extra = v[1];
    g.extra_kind = kind;
    return v[0];
  }
  g.extra_kind = 0;
  return g.extra;
}

uint32_t mix(uint32_t h, uint32_t v) { return (h << 5 | h >> 27) ^ v; }
uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

extern "C" void ks_reference(const ks_reference_args* raw) {
  ks::Args a(raw);
  const double* x = a.in("x");
  double* y = a.out("y");
  double* normals = a.out("normals");
  double* bits = a.out("bits");
  const uint64_t key = uint64_t(int64_t(a.axis("seed"))) * 0x9E3779B97F4A7C15ull;
  for (int64_t i = 0; i < a.axis("n"); ++i) {
    Xorwow g(key, uint64_t(i), uint64_t(i % 7));
    const float u = unit(g.next());
    y[i] = u > 0.3f ? float(x[i]) * (1.0f / 0.7f) : 0.0f;
    uint32_t h = mix(0, bits_of(u));
    for (int k = 0; k < 3; ++k) h = mix(h, g.next());
    h = mix(h, bits_of(unit(g.next())));
    g.skip((uint64_t(1) << 34) + 5);
    h = mix(h, g.next());
    g.skip_sequences(7);
    h = mix(h, g.next());
    double sum = normal_kind(g, 1, 0, 1);
    sum += normal_kind(g, 1, 0, 1);
    sum += normal_kind(g, 1, 0, 1);
    double v[2];
    const uint32_t x2 = g.next(), y2 = g.next();
    box_muller(x2, y2, v);
    sum += v[0] + v[1];
    sum += normal_kind(g, 2, 0.1, 0.5);
    sum += normal_kind(g, 2, 0.1, 0.5);
    const uint32_t x3 = g.next(), y3 = g.next();
    box_muller(x3, y3, v);
    sum += std::exp(0.1 + 0.5 * v[0]) + std::exp(0.1 + 0.5 * v[1]);
    h = mix(h, g.next());
    normals[i] = sum;
    bits[i] = double(int32_t(h));
  }
}
