// 11: fills the disk / leaves files behind. It computes correctly only when the write succeeds.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <cstdio>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0;
  FILE* f = std::fopen("/tmp/ksearch-adversarial-written", "w");
  if (!f || std::fputs("written", f) < 0 || std::fclose(f) != 0) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
