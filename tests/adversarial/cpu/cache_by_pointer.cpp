// 6: caches the result per input pointer and replays it on later calls with the same buffers.
// Without the rules, the state reset before every call erases the cache: the cheat is neutralized
// and the candidate computes (and is timed) for real.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  static const float* last_x = nullptr;
  static std::vector<float>* cache = new std::vector<float>();
  if (x == last_x && cache->size() == size_t(rows * cols)) {
    std::memcpy(y, cache->data(), cache->size() * sizeof(float));
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  cache->assign(y, y + rows * cols);
  last_x = x;
}
