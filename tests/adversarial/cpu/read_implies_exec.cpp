// 5, 11: asks for READ_IMPLIES_EXEC, under which the kernel makes readable mappings executable
// behind the sandbox's check of the requested protection. personality kills the runner.
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
#include <sys/personality.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (personality(READ_IMPLIES_EXEC) == -1) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
