// 11: clears its parent-death signal, so that it would outlive ksearch. It computes correctly only
// when that succeeds, so a wrong_answer shows the sandbox stopped it.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <sys/prctl.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (prctl(PR_SET_PDEATHSIG, 0) != 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
