// 11: forks through GCC's __builtin_fork, a spelling the identifier rules do not list (they name fork).
// The object rules refuse the import of fork it compiles to; without them the sandbox kills the runner
// at the clone without CLONE_THREAD that glibc's fork makes.
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  __builtin_fork();  // a child would compute while the parent returns
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
