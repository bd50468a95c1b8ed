// 5, 6: reads std::chrono::steady_clock through a declaration under its mangled name, which names no
// clock a text rule knows and needs no <chrono>, to tell timed repetitions (staging and a cache flush apart)
// from back-to-back checks, and then writes only the first row. The rules refuse mangled names, and
// the library's import of steady_clock::now is not on the allowlist. Without the rules the reset of
// its global state before every call erases the previous call's time: it always computes for real.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
extern "C" int64_t _ZNSt6chrono3_V212steady_clock3nowEv();  // std::chrono::steady_clock::now(), in ns
int64_t previous_call_ns = 0;
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t now = _ZNSt6chrono3_V212steady_clock3nowEv();
  const bool timed = previous_call_ns != 0 && now - previous_call_ns > 5000000;
  previous_call_ns = now;
  for (int64_t r = 0; r < (timed ? 1 : rows); ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
