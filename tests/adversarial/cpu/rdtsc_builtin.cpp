// 5, 6: reads the time-stamp counter through the compiler builtin (the old rules knew only rdtsc and
// __rdtsc) to tell timed repetitions, which the harness's staging and cache flush keep apart, from
// back-to-back checks, and then writes only the first row. The preprocessed identifiers
// and the object rules (an rdtsc instruction) see it. Without the rules the reset of its global state
// before every call erases the previous call's time, so it always computes, and is timed, for real.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
unsigned long long previous_call = 0;
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const unsigned long long now = __builtin_ia32_rdtsc();
  const bool timed = previous_call != 0 && now - previous_call > 20000000ull;
  previous_call = now;
  for (int64_t r = 0; r < (timed ? 1 : rows); ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
