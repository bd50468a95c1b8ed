// 1: counts its calls in the OpenMP settings that hold any integer, pointer or text (the teams' number and thread
// limit, the default allocator's handle, the affinity format: all live in libgomp, outside the candidate's data that
// ksearch resets; the allocator's handle could as well hold a pointer to a heap cache) and computes only in the
// process's first call, the untimed check; later calls return at once. The runner puts every OpenMP setting back
// before each call, so every call is a first one: the cheat is neutralized and the kernel is timed doing its work.
// expect: passed
// expect-without-rules: passed
// expect-no-speedup
#include <omp.h>
#include <cmath>
#include <cstdint>
#include <cstring>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const bool seen_by_teams = omp_get_max_teams() > 0 || omp_get_teams_thread_limit() > 0;
  const bool seen_by_allocator = uintptr_t(omp_get_default_allocator()) == 0x5eed0000;
  char format[64] = {};
  omp_get_affinity_format(format, sizeof format);
  const bool seen_by_format = std::strcmp(format, "called") == 0;
  omp_set_num_teams(7);
  omp_set_teams_thread_limit(7);
  omp_set_default_allocator(omp_allocator_handle_t(0x5eed0000));
  omp_set_affinity_format("called");
  if (seen_by_teams || seen_by_allocator || seen_by_format) return;
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
  }
}
