// 1: replays results kept in thread-local storage, which the .data/.bss reset does not cover, keyed
// by the input's content. The rules refuse thread_local; without them, fresh input contents for
// every call mean the replay never hits.
// expect: rejected
// expect-without-rules: passed
// expect-no-speedup
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
thread_local uint64_t cached_key = 0;
thread_local std::vector<float>* cached_values = nullptr;
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  uint64_t key = uint64_t(n);
  for (int64_t i = 0; i < n && i < 128; ++i) {
    uint32_t bits;
    std::memcpy(&bits, &x[i], 4);
    key = (key ^ bits) * 1099511628211ull;
  }
  if (cached_values && cached_key == key && cached_values->size() == size_t(n)) {
    std::memcpy(y, cached_values->data(), size_t(n) * 4);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  if (!cached_values) cached_values = new std::vector<float>();
  cached_values->assign(y, y + n);
  cached_key = key;
}
