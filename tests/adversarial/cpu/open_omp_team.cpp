// 4: opens an OpenMP team with the split entry point (GOMP_parallel_start) and returns without ending it:
// the pool worker computes the rows after the call has returned, off the clock (the next call joins it first).
// The rules refuse the split entry points; without them the runner finds the call returned inside a team.
// expect: rejected
// expect-without-rules: runtime_error
#include <omp.h>
#include <cmath>
#include <cstdint>
extern "C" void GOMP_parallel_start(void (*)(void*), void*, unsigned);
extern "C" void GOMP_parallel_end(void);
struct Job {
  const float* x;
  float* y;
  int64_t rows, cols;
};
static Job job;
static void rows_of_the_team(void*) {
  if (omp_get_thread_num() == 0) return;  // the caller's thread returns at once
  for (int64_t r = 0; r < job.rows; ++r) {
    const float* x = job.x + r * job.cols;
    float* y = job.y + r * job.cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < job.cols; ++c) m = std::fmax(m, x[c]);
    for (int64_t c = 0; c < job.cols; ++c) s += std::exp(x[c] - m);
    for (int64_t c = 0; c < job.cols; ++c) y[c] = std::exp(x[c] - m) / s;
  }
}
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  if (omp_in_parallel()) GOMP_parallel_end();  // the previous call's team
  job = {x, y, rows, cols};
  GOMP_parallel_start(rows_of_the_team, nullptr, 2);
}
