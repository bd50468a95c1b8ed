// Control: an immutable C++20 `static constinit const` local (constinit between static and const) is a constant,
// not state: it must pass.
// expect: passed
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  static constinit const float kZero = 0.0f;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = kZero;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
