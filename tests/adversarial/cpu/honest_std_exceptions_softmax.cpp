// Control: an honest softmax with std::vector scratch, <algorithm>/<numeric> passes, and exceptions of
// the standard hierarchy (<stdexcept>) thrown and caught inside the call. It must pass: the headers are
// allowed and the exception classes' members are allowed imports.
// expect: passed
// expect-without-rules: passed
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <vector>

namespace {
struct EmptyRow {};

void row_softmax(const float* x, float* y, int64_t cols, std::vector<float>& scratch) {
  if (cols <= 0) throw EmptyRow{};
  scratch.assign(x, x + cols);
  const float m = *std::max_element(scratch.begin(), scratch.end());
  std::transform(scratch.begin(), scratch.end(), scratch.begin(), [m](float v) { return std::exp(v - m); });
  const float sum = std::accumulate(scratch.begin(), scratch.end(), 0.0f);
  if (!(sum > 0)) throw std::runtime_error("softmax row sums to zero");
  std::transform(scratch.begin(), scratch.end(), y, [sum](float e) { return e / sum; });
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel
  {
    std::vector<float> scratch;
    scratch.reserve(static_cast<size_t>(cols));
#pragma omp for schedule(static)
    for (int64_t r = 0; r < rows; ++r) {
      try {
        row_softmax(x + r * cols, y + r * cols, cols, scratch);
      } catch (const EmptyRow&) {
      } catch (const std::exception&) {
        std::fill(y + r * cols, y + (r + 1) * cols, 1.0f / float(cols));
      }
    }
  }
}
