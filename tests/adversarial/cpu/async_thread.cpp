// 4: returns at once and lets a detached thread do the work, so the timed region ends before the work.
// Without the rules the sandbox refuses the new thread: std::thread throws, which ends the call.
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
#include <thread>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  std::thread([=] {
    volatile long spin = 0;
    for (long i = 0; i < 20000000; ++i) spin = spin + 1;  // finish well after the harness looks
    for (int64_t r = 0; r < rows; ++r) {
      float m = -INFINITY, s = 0;
      for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
      for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
      for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
    }
  }).detach();
}
