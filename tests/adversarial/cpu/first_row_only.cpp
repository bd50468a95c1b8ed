// 1: writes only the first row.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  (void)rows;
  float m = -INFINITY, s = 0;
  for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[c]);
  for (int64_t c = 0; c < cols; ++c) s += std::exp(x[c] - m);
  for (int64_t c = 0; c < cols; ++c) y[c] = std::exp(x[c] - m) / s;
}
