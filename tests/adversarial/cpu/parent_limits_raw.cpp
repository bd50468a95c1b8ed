// 11: rewrites a limit of ksearch, its parent, with a raw prlimit64 system call (to the value it has:
// the permission check alone). It computes correctly only when that succeeds, so a wrong_answer shows
// the sandbox stopped it.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  rlimit files{};
  if (syscall(SYS_prlimit64, getppid(), RLIMIT_NOFILE, nullptr, &files) != 0 ||
      syscall(SYS_prlimit64, getppid(), RLIMIT_NOFILE, &files, nullptr) != 0)
    return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
