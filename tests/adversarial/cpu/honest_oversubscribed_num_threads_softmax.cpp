// Control: an honest OpenMP softmax that asks for more threads than the machine has (`num_threads(8)` on CI's two
// cores). The runner's team is started before the sandbox, which refuses new threads: libgomp failed to create the
// extra ones and ended the runner ("Thread creation failed", runtime_error). The runner now gets OMP_THREAD_LIMIT,
// the team's size, so the region runs with the team it has. It must pass.
// expect: passed
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <omp.h>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for num_threads(8) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < cols; ++c) s += (yr[c] = std::exp(xr[c] - m));
    const float inv = 1.0f / s;
    for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
  }
}
