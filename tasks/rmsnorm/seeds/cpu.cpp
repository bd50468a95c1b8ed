// Naive seed: two scalar passes per row, single-threaded.
#include <cmath>
#include <cstdint>

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps) {
  for (int64_t r = 0; r < rows; ++r) {
    float sum_sq = 0;
    for (int64_t c = 0; c < cols; ++c) sum_sq += x[r * cols + c] * x[r * cols + c];
    const float inv = 1.0f / std::sqrt(sum_sq / float(cols) + eps);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = x[r * cols + c] * inv * weight[c];
  }
}
