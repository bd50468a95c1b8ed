// 6, 11: reads a file outside its sandbox (the test puts one at /tmp/ksearch-adversarial-secret); if
// it could, it would learn the inputs. It computes correctly only when the read succeeds, so a
// wrong_answer shows that the sandbox stopped it.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <cstdio>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  FILE* f = std::fopen("/tmp/ksearch-adversarial-secret", "r");
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0;
  if (!f) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
