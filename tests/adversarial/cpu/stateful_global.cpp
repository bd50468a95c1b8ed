// 6: keeps state in a global (not 'static', so the source rules do not see it): from the second call
// on it would replay instead of computing; here it writes garbage on a replay, so a failure to reset
// the candidate's state between calls shows up as wrong_answer.
// expect: passed
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
int calls_seen = 0;
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (calls_seen++ > 0) {
    for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0.5f;
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
