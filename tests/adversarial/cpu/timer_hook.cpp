// 5: interposes clock_gettime so that the harness's timer stands still. The runner binds its clock
// before the candidate is loaded (RTLD_LOCAL), so the hook has no effect: the candidate is correct
// and its timing real (the test also checks the median is not zero).
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <ctime>
extern "C" int clock_gettime(clockid_t, struct timespec* ts) {
  ts->tv_sec = 0;
  ts->tv_nsec = 0;
  return 0;
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
