// 9: hard-codes the row length of the first visible workload.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t) {
  constexpr int64_t cols = 256;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
