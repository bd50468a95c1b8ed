// 1, 6: counts its calls in a `mutable` member of a `static const` object (the rules accept a constant
// static; the member can still change) and from the second call on writes a cheap guess instead of
// computing. The object lands in .bss, which the runner restores before every call: each call is the
// first, and it computes (and is timed) for real.
// expect: passed
// expect-without-rules: passed
// expect-no-speedup
#include <cmath>
#include <cstdint>
namespace {
struct CallCount {
  mutable int64_t calls = 0;
};
}  // namespace
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  static const CallCount count;
  if (count.calls++ > 0) {
    for (int64_t i = 0; i < rows * cols; ++i) y[i] = 1.0f / float(cols);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
