// 11: runs its own code at load time without a constructor, a dynamic initializer or an indirect function:
// crti's _init, which the loader runs before .init_array, calls __gmon_start__ whenever the library defines
// it (a weak reference meant for profiling). Here it only fills a table off the clock, but it could run
// anything the library may import before the runner's second seccomp stage, and set the state every call
// starts from. The object rules refuse a definition of the names the toolchain's load and unload code calls.
// Without the rules the table is in place when the snapshot is taken, and the softmax is right.
// expect: rejected
// expect-without-rules: passed
#include <cmath>
#include <cstdint>

constexpr int kSteps = 4096;
float exp_of_step[kSteps + 1];  // exp(-x) at x = 32 * i / kSteps, filled at load time

extern "C" void __gmon_start__() {
  for (int i = 0; i <= kSteps; ++i) exp_of_step[i] = std::exp(-32.0f * float(i) / kSteps);
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, in[c]);
    for (int64_t c = 0; c < cols; ++c) {
      const float steps = (m - in[c]) * (kSteps / 32.0f);
      const int i = int(steps);
      // exp(-(i + f) * h) = exp_of_step[i] * exp(-f * h): the table only has to be there.
      out[c] = i < kSteps ? exp_of_step[i] * std::exp(-(steps - float(i)) * (32.0f / kSteps)) : 0.0f;
      s += out[c];
    }
    for (int64_t c = 0; c < cols; ++c) out[c] /= s;
  }
}
