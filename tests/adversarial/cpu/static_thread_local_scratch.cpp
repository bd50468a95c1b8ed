// 1: a `static thread_local` scratch buffer: thread-local storage outlives the call and the runner cannot
// reset it, so the rules refuse it and say where (this one only reuses its memory: without the rules it
// computes correctly and passes).
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  static thread_local std::vector<float> scratch;
  scratch.resize(size_t(cols));
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
    for (int64_t c = 0; c < cols; ++c) s += (scratch[size_t(c)] = std::exp(x[r * cols + c] - m));
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = scratch[size_t(c)] / s;
  }
}
