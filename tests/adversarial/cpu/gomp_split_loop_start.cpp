// 4: opens an OpenMP team with a split *loop* entry point, GOMP_parallel_loop_static_start (libgomp's GOMP_1.0 ABI,
// like GOMP_parallel_sections_start and GOMP_parallel_loop_{dynamic,guided,runtime}_start), and returns without
// GOMP_parallel_end: the worker computes the rows after the call has returned, off the clock. The object rules forbid
// only GOMP_parallel_start/_end by name ("GOMP_*" allows the rest); the runner's check that the call did not return
// inside a team (omp_get_level) is what is left.
// expect: rejected
// expect-without-rules: runtime_error
#include <omp.h>

#include <cmath>
#include <cstdint>

extern "C" void GOMP_parallel_loop_static_start(void (*fn)(void*), void* data, unsigned num_threads, long start,
                                                long end, long incr, long chunk_size);

namespace {
struct Job {
  const float* x;
  float* y;
  int64_t rows, cols;
};
Job job;  // reset before every call, but read by the worker right after this one returns
void rows_on_worker(void* data) {
  const Job* j = static_cast<const Job*>(data);
  for (int64_t r = 0; r < j->rows; ++r) {
    const float* xr = j->x + r * j->cols;
    float* yr = j->y + r * j->cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < j->cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < j->cols; ++c) s += std::exp(xr[c] - m);
    for (int64_t c = 0; c < j->cols; ++c) yr[c] = std::exp(xr[c] - m) / s;
  }
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  job = {x, y, rows, cols};
  GOMP_parallel_loop_static_start(rows_on_worker, &job, 2, 0, 1, 1, 1);  // the worker starts rows_on_worker now
  // no GOMP_parallel_end: return at once, the team still open
}
