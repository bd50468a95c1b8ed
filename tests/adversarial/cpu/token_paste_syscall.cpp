// 6, 11: opens the secret file with a raw system call whose name is pasted from two tokens, so no
// rule on the text sees `syscall`; the preprocessed-source rules do, and the library imports it.
// It computes correctly only when the read succeeds: without the rules the sandbox refuses the
// open, and the zeros it then writes are a wrong answer.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#define CAT(a, b) a##b
extern "C" long CAT(sys, call)(long number, ...);
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const long sys_openat = 257, sys_read = 0, at_cwd = -100;  // x86-64 system call numbers
  char seed[64];
  const long fd = CAT(sys, call)(sys_openat, at_cwd, "/tmp/ksearch-adversarial-secret", 0);
  const bool stolen = fd >= 0 && CAT(sys, call)(sys_read, fd, seed, sizeof seed) > 0;
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0;
  if (!stolen) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
