// 2: computes only while the output still holds the poison. Outputs were poisoned once per timing
// set, so repetitions after the first kept the earlier (still right) results and skipped the work.
// Now every repetition gets freshly poisoned outputs and fresh inputs: it always computes.
// expect: passed
// expect-without-rules: passed
// expect-no-speedup
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (!std::isnan(y[0]) && !std::isnan(y[rows * cols - 1])) return;  // "already computed"
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
