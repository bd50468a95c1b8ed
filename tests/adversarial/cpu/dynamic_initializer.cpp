// 6, 11: reads the secret file in the dynamic initializer of a namespace-scope variable (no
// `static`, no constructor attribute: nothing the old load-time pattern matched), which runs when
// the library is loaded, before the runner's second seccomp stage. The object rules see the
// initializer in .init_array. It computes correctly only when the read succeeded: without the rules
// Landlock still refuses the open, and the zeros it writes are a wrong answer.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <cstdio>
bool read_seeds() {
  std::FILE* f = std::fopen("/tmp/ksearch-adversarial-secret", "r");
  return f && std::fgetc(f) != EOF;
}
bool stolen = read_seeds();
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0;
  if (!stolen) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
