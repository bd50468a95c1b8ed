// 2, 3: skips the work in the calls it guesses are timed. Per workload the evaluator used to make 3
// checked trials, then the warm-up and at least 5 timed calls, then one re-check: this candidate
// counts calls in thread-local storage (which the state reset does not reach) and computes only in
// the first 3 calls and from the 11th on, so every check passed while half the timed calls did
// nothing. Timed repetitions are now checked too, two of them among the first 5: caught.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
thread_local int64_t calls_seen = 0;
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t call = ++calls_seen;
  if (call > 3 && call <= 10) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
