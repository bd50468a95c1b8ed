// 11: lowers the priority of ksearch, its parent (an unprivileged process cannot raise it back). It
// computes correctly only when the change succeeds, so a wrong_answer shows the sandbox stopped it
// (the test also checks that its own priority is unchanged).
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <sys/resource.h>
#include <unistd.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (setpriority(PRIO_PROCESS, id_t(getppid()), 19) != 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
