// 11: lifts its own memory and CPU-time limits (possible for root with its capabilities). It computes
// correctly only when both changes succeed, so a wrong_answer shows the sandbox stopped it.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <sys/resource.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const rlimit unlimited{RLIM_INFINITY, RLIM_INFINITY};
  if (setrlimit(RLIMIT_AS, &unlimited) != 0 || setrlimit(RLIMIT_CPU, &unlimited) != 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
