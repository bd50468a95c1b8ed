// 11: signals ksearch, its parent, with tgkill (signal 0 asks for the permission that SIGSTOP or
// SIGKILL would need). Signals to any process but the runner itself kill the runner.
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
#include <signal.h>
#include <unistd.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const pid_t parent = getppid();
  if (tgkill(parent, parent, 0) != 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
