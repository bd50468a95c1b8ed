// Softmax with one exp per element: the sum pass writes exp(x - max) to y.
#include <cmath>
#include <cstdint>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    float sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const float e = std::exp(xr[c] - m);
      yr[c] = e;
      sum += e;
    }
    const float inv = 1.0f / sum;
    for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
  }
}
