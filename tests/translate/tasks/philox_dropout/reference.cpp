#include <cmath>
#include <cstdint>
#include <cstring>

#include "ksearch/reference.h"

namespace {

// cuRAND's Philox4_32_10 stream as its documentation and headers define it: 128-bit counter, 64-bit key (the seed),
// ten rounds; curand_init(seed, subsequence, offset) puts the subsequence in the counter's high half and skips
// offset words; words are handed out in turn from each block.
struct Philox {
  uint32_t counter[4] = {0, 0, 0, 0}, output[4] = {0, 0, 0, 0}, key[2] = {0, 0};
  uint32_t position = 0;
  int extra_kind = 0;
  double extra = 0;

  static void round(uint32_t c[4], const uint32_t k[2]) {
    const uint64_t p0 = uint64_t(0xD2511F53u) * c[0], p1 = uint64_t(0xCD9E8D57u) * c[2];
    const uint32_t r[4] = {uint32_t(p1 >> 32) ^ c[1] ^ k[0], uint32_t(p1), uint32_t(p0 >> 32) ^ c[3] ^ k[1], uint32_t(p0)};
    std::memcpy(c, r, sizeof r);
  }
  void refresh() {
    uint32_t c[4], k[2] = {key[0], key[1]};
    std::memcpy(c, counter, sizeof c);
    for (int i = 0; i < 10; ++i) {
      round(c, k);
      k[0] += 0x9E3779B9u;
      k[1] += 0xBB67AE85u;
    }
    std::memcpy(output, c, sizeof c);
  }
  // the counter plus n (a 128-bit add; cuRAND's carry out of the second word)
  void add(uint64_t n, int from) {
    unsigned __int128 low = (unsigned __int128)counter[from] | (unsigned __int128)counter[from + 1] << 32;
    const unsigned __int128 sum = low + n;
    counter[from] = uint32_t(sum);
    counter[from + 1] = uint32_t(sum >> 32);
    if (from == 0 && (sum >> 64) != 0 && ++counter[2] == 0) ++counter[3];
  }
  void skip(uint64_t n) {
    position += uint32_t(n & 3);
    n /= 4;
    if (position > 3) {
      n += 1;
      position -= 4;
    }
    add(n, 0);
    refresh();
  }
  void skip_sequences(uint64_t n) {
    add(n, 2);
    refresh();
  }
  Philox(uint64_t seed, uint64_t subsequence, uint64_t offset) {
    key[0] = uint32_t(seed);
    key[1] = uint32_t(seed >> 32);
    skip_sequences(subsequence);
    skip(offset);
  }
  uint32_t next() {
    const uint32_t word = output[position];
    if (++position == 4) {
      add(1, 0);
      refresh();
      position = 0;
    }
    return word;
  }
  void next4(uint32_t out[4]) {
    uint32_t words[8];
    std::memcpy(words, output, 16);
    add(1, 0);
    refresh();
    std::memcpy(words + 4, output, 16);
    for (int i = 0; i < 4; ++i) out[i] = words[position + i];
  }
};

float unit(uint32_t x) { return std::fmaf(float(x), 2.3283064e-10f, 2.3283064e-10f / 2.0f); }
void box_muller(uint32_t x, uint32_t y, double out[2]) {
  const float u = unit(x), v = std::fmaf(float(y), 2.3283064e-10f * 6.2831855f, 2.3283064e-10f * 6.2831855f / 2.0f);
  const double s = std::sqrt(-2.0 * std::log(double(u)));
  out[0] = s * std::sin(double(v));
  out[1] = s * std::cos(double(v));
}
double normal_kind(Philox& p, int kind, double mean, double stddev) {
  if (p.extra_kind != kind) {
    const uint32_t x = p.next(), y = p.next();
    double v[2];
    box_muller(x, y, v);
    if (kind == 2) v[0] = std::exp(mean + stddev * v[0]), v[1] = std::exp(mean + stddev * v[1]);
    p.extra = v[1];
    p.extra_kind = kind;
    return v[0];
  }
  p.extra_kind = 0;
  return p.extra;
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
    Philox p(key, uint64_t(i), 3);
    const float u = unit(p.next());
    y[i] = u > 0.3f ? float(x[i]) * (1.0f / 0.7f) : 0.0f;
    uint32_t h = mix(0, bits_of(u));
    uint32_t w[4];
    p.next4(w);
    for (uint32_t v : w) h = mix(h, v);
    p.next4(w);
    for (uint32_t v : w) h = mix(h, bits_of(unit(v)));
    h = mix(h, p.next());
    p.skip((uint64_t(1) << 34) + 5);
    h = mix(h, p.next());
    p.skip_sequences(7);
    h = mix(h, p.next());
    double sum = normal_kind(p, 1, 0, 1);
    sum += normal_kind(p, 1, 0, 1);
    sum += normal_kind(p, 1, 0, 1);
    double v[2];
    p.next4(w);
    box_muller(w[0], w[1], v);
    sum += v[0] + v[1];
    box_muller(w[2], w[3], v);
    sum += v[0] + v[1];
    const uint32_t x2 = p.next(), y2 = p.next();
    box_muller(x2, y2, v);
    sum += v[0] + v[1];
    sum += normal_kind(p, 2, 0.1, 0.5);
    sum += normal_kind(p, 2, 0.1, 0.5);
    h = mix(h, p.next());
    normals[i] = sum;
    bits[i] = double(int32_t(h));
  }
}
