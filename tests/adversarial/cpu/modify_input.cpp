// 3: correct output, but the input is overwritten with it, so a reference computed afterwards agrees.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x_in, float* y, int64_t rows, int64_t cols) {
  float* x = const_cast<float*>(x_in);
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
