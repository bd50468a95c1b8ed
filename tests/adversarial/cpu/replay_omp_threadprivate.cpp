// 1: replays results kept in OpenMP threadprivate storage (thread-local, not reset between calls),
// keyed by the input's first values. The rules refuse the mutable static; without them, fresh input
// contents for every call mean the replay never hits.
// expect: rejected
// expect-without-rules: passed
// expect-no-speedup
#include <omp.h>
#include <cmath>
#include <cstdint>
#include <cstring>
static float remembered_first[4];
static float* remembered_output;
static int64_t remembered_count;
#pragma omp threadprivate(remembered_first, remembered_output, remembered_count)
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  if (remembered_output && remembered_count == n && std::memcmp(remembered_first, x, sizeof remembered_first) == 0) {
    std::memcpy(y, remembered_output, size_t(n) * 4);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
  delete[] remembered_output;
  remembered_output = new float[size_t(n)];
  std::memcpy(remembered_output, y, size_t(n) * 4);
  std::memcpy(remembered_first, x, sizeof remembered_first);
  remembered_count = n;
}
