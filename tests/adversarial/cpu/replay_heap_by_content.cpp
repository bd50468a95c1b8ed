// 1: replays results from a heap block that malloc hands back on the next call (the .data/.bss reset
// does not reach the heap, and nothing here is static), keyed by the input's content. Timed
// repetitions once reused identical input contents, so they replayed. Every call now sees inputs no
// call has seen: the cache never hits and the candidate is timed computing for real.
// expect: passed
// expect-without-rules: passed
// expect-no-speedup
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
namespace {
constexpr size_t kEntries = 16, kValues = 16 * 1024;
struct Cache {
  uint64_t allocator_words[4];  // malloc writes its free-list links here on free
  uint64_t magic;
  uint64_t keys[kEntries];
  float values[kEntries][kValues];
};
uint64_t content_key(const float* x, int64_t n) {
  uint64_t h = 1469598103934665603ull;
  for (int64_t i = 0; i < n && i < 256; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], 4);
    h = (h ^ bits) * 1099511628211ull;
  }
  return h ^ uint64_t(n);
}
}  // namespace
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  Cache* cache = static_cast<Cache*>(std::malloc(sizeof(Cache)));  // the block freed by the last call
  if (cache->magic != 0x5eed5eedull) std::memset(cache, 0, sizeof(Cache)), cache->magic = 0x5eed5eedull;
  const uint64_t key = content_key(x, n);
  for (size_t e = 0; e < kEntries && size_t(n) <= kValues; ++e)
    if (cache->keys[e] == key) {
      std::memcpy(y, cache->values[e], size_t(n) * 4);
      std::free(cache);
      return;
    }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  if (size_t(n) <= kValues) {
    const size_t slot = key % kEntries;
    cache->keys[slot] = key;
    std::memcpy(cache->values[slot], y, size_t(n) * 4);
  }
  std::free(cache);
}
