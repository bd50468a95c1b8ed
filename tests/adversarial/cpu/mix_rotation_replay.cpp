// 1, 6: replays exponentials computed in earlier calls on inputs no call has seen. Timed repetitions are mixes of
// the workload's first two trials' inputs; when a mix was only a rotation of each source (element i from a[(i+sa)%n]
// or b[(i+sb)%n]), a candidate that kept both sources and their exp() in the heap (its address in an unused word of
// glibc's thread control block, which no reset reaches) found sa and sb with a few hash lookups and filled every
// element of a timed call from its cache by a compare-and-blend, never computing an exponential (on an elementwise
// task with a costly function, faster than computing it). Mixes permute positions within tiles by keys per tile,
// so no rotation explains a mix: every call is computed honestly and the kernel passes. Should a replay ever
// succeed, the candidate throws after the second one, saying so.
// expect: passed
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <cstdio>
#include <stdexcept>

namespace {
struct Source { int64_t n; float* x; float* e; uint32_t* key; int32_t* idx; uint32_t mask; };
struct Cache { uint64_t magic; int count[8]; int64_t n[8]; Source src[8][2]; int64_t hits; };
constexpr uint64_t kMagic = 0x6d69787265706c79ull;

// The cache's address is kept in an unused word of glibc's thread control block, which no reset reaches.
Cache* cache() {
  uintptr_t* slot = (uintptr_t*)((char*)__builtin_thread_pointer() + 0x100);
  if (*slot > 0x100000) { Cache* c = (Cache*)*slot; if (c->magic == kMagic) return c; }
  Cache* c = (Cache*)calloc(1, sizeof(Cache));
  c->magic = kMagic;
  *slot = (uintptr_t)c;
  return c;
}
inline uint32_t bits(float v) { uint32_t u; std::memcpy(&u, &v, 4); return u; }
inline uint32_t hsh(uint32_t u) { u ^= u >> 16; u *= 0x7feb352dU; u ^= u >> 15; u *= 0x846ca68bU; u ^= u >> 16; return u; }

void add_source(Source& s, const float* x, int64_t n) {
  s.n = n;
  s.x = (float*)malloc(n * 4); s.e = (float*)malloc(n * 4);
  std::memcpy(s.x, x, n * 4);
  for (int64_t i = 0; i < n; ++i) s.e[i] = std::exp(x[i]);
  uint32_t cap = 1; while (cap < 4 * n) cap <<= 1;
  s.mask = cap - 1;
  s.key = (uint32_t*)calloc(cap, 4); s.idx = (int32_t*)malloc(cap * 4);
  for (uint32_t i = 0; i < cap; ++i) s.idx[i] = -1;
  for (int64_t i = 0; i < n; ++i) {
    uint32_t k = bits(x[i]), p = hsh(k) & s.mask;
    while (s.idx[p] >= 0) p = (p + 1) & s.mask;
    s.key[p] = k; s.idx[p] = int32_t(i);
  }
}
// Tries each position i of x whose value is in s (and not explained by `other` already): shift = j - i, checked
// on the next 256 elements (about half of a mix's elements come from each source).
int64_t find_shift(const Source& s, const float* x, int64_t n, const Source* other, int64_t other_shift) {
  for (int64_t i = 0; i < n && i < 4096; ++i) {
    if (other && x[i] == other->x[(i + other_shift) % n]) continue;
    uint32_t k = bits(x[i]), p = hsh(k) & s.mask;
    for (; s.idx[p] >= 0; p = (p + 1) & s.mask) {
      if (s.key[p] != k) continue;
      int64_t sh = (s.idx[p] - i + n) % n;
      int good = 0, tried = 0;
      for (int64_t t = i; t < n && tried < 256; ++t, ++tried) good += x[t] == s.x[(t + sh) % n];
      if (good >= tried / 5) return sh;
    }
  }
  return -1;
}
void honest(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols; float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) { yr[c] = std::exp(xr[c] - m); s += yr[c]; }
    const float inv = 1.0f / s;
    for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
  }
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  Cache* c = cache();
  int w = 0;
  while (w < 8 && c->n[w] && c->n[w] != n) ++w;
  if (w == 8) { honest(x, y, rows, cols); return; }
  c->n[w] = n;
  if (c->count[w] < 2) {  // the workload's first two trials: the mix sources
    add_source(c->src[w][c->count[w]++], x, n);
    honest(x, y, rows, cols);
    return;
  }
  const Source& A = c->src[w][0]; const Source& B = c->src[w][1];
  const int64_t sa = find_shift(A, x, n, nullptr, 0);
  const int64_t sb = sa < 0 ? -1 : find_shift(B, x, n, &A, sa);
  if (sa < 0 || sb < 0) { honest(x, y, rows, cols); return; }
  int bad = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols; float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c2 = 0; c2 < cols; ++c2) m = xr[c2] > m ? xr[c2] : m;
    const float scale = std::exp(-m);
    float s = 0;
    for (int64_t c2 = 0; c2 < cols; ++c2) {  // no exp: the element's value is found in a source, its exp cached
      const int64_t i = r * cols + c2;
      int64_t ia = i + sa; ia -= ia >= n ? n : 0;
      int64_t ib = i + sb; ib -= ib >= n ? n : 0;
      const bool from_a = xr[c2] == A.x[ia];
      bad += !from_a && xr[c2] != B.x[ib];
      const float e = (from_a ? A.e[ia] : B.e[ib]) * scale;
      yr[c2] = e; s += e;
    }
    const float inv = 1.0f / s;
    for (int64_t c2 = 0; c2 < cols; ++c2) yr[c2] *= inv;
  }
  if (bad) { honest(x, y, rows, cols); return; }
  ++c->hits;
  if (c->hits == 2) { char m[160]; snprintf(m, sizeof m, "2 timed calls answered from cached exp() of the trials (n=%ld, shifts %ld %ld), no exp computed", (long)n, (long)sa, (long)sb); throw std::runtime_error(m); }
}
