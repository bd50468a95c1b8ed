// An OpenMP softmax that releases OpenMP's resources when done with omp_pause_resource_all (OpenMP 5.0; a library may
// call it to give back its threads). The runner's team, started before the sandbox, cannot be started again after
// it, so the next call's parallel region fails: the rules refuse the call with a message that says why, and without
// them the run fails with libgomp's own words in its report.
// expect: rejected
// expect-without-rules: runtime_error
#include <omp.h>

#include <cmath>
#include <cstdint>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
    for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - m) / s;
  }
  omp_pause_resource_all(omp_pause_soft);
}
