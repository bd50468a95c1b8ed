// 11: pins ksearch, its parent, to one core: every runner it starts later would inherit that. It
// computes correctly only when the change succeeds, so a wrong_answer shows the sandbox stopped it
// (the test also checks that its own affinity is unchanged).
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <sched.h>
#include <unistd.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  cpu_set_t one;
  CPU_ZERO(&one);
  CPU_SET(0, &one);
  if (sched_setaffinity(getppid(), sizeof one, &one) != 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
