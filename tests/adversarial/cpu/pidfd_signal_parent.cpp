// 11: signals ksearch, its parent, through a pidfd, with raw system calls (signal 0: the permission
// check alone). pidfd_open kills the runner.
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
#include <sys/syscall.h>
#include <unistd.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const long parent = syscall(SYS_pidfd_open, getppid(), 0);
  if (parent < 0 || syscall(SYS_pidfd_send_signal, parent, 0, nullptr, 0) != 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
