// 1: counts its calls in an OpenMP setting (the schedule's chunk size lives in libgomp, outside the
// candidate's data that ksearch resets) and computes only in the process's first call, the untimed check;
// later calls return at once. The runner puts OpenMP's settings back before every call, so every call is a
// first one: the cheat is neutralized and the kernel is timed doing its work.
// expect: passed
// expect-without-rules: passed
// expect-no-speedup
#include <omp.h>
#include <cmath>
#include <cstdint>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  omp_sched_t kind;
  int calls;
  omp_get_schedule(&kind, &calls);
  omp_set_schedule(kind, calls + 1000);
  if (calls >= 1000) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
