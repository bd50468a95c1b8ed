// 1, 6: mutable static state hidden in the second declarator of a `static const` declaration:
// `static const float kOne = 1.0f, *calls = nullptr;` declares a mutable static pointer (to const) that the
// persistent-state rule takes for a constant (it reads `static const ... =` and stops). It counts calls in that
// pointer and skips the work from the second call on. The rules should refuse it; at run time the .data/.bss reset
// before every call makes every call the first (as mutable_member_counter.cpp): neutralized, it computes for real.
// expect: rejected
// expect-without-rules: passed
// expect-no-speedup
#include <cmath>
#include <cstdint>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  static const float kOne = 1.0f, *calls = nullptr;
  calls = calls + 1;  // a pointer stepping through address space: a counter
  if (calls != &kOne - &kOne + static_cast<const float*>(nullptr) + 1) {
    for (int64_t i = 0; i < rows * cols; ++i) y[i] = kOne / float(cols);  // a cheap guess on later calls
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
    for (int64_t c = 0; c < cols; ++c) yr[c] = std::exp(xr[c] - m) / s;
  }
}
