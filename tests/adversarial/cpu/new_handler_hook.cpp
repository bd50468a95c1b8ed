// 5, 6: installs a new_handler: the C++ runtime calls it when an allocation fails, and a candidate that makes the
// runner's own allocations fail (its address space used up between calls) would run its code inside the runner's
// bookkeeping, off every clock (staging the next inputs, say). The runner checks after every call that no handler is
// installed; here the handler only records that it ran. The object rules refuse the import of std::set_new_handler
// (a candidate could reach it through libstdc++'s symbol table instead).
// expect: rejected
// expect-without-rules: runtime_error
// expect-message: new_handler
#include <cmath>
#include <cstdint>
#include <new>

static void precompute_off_the_clock() { std::set_new_handler(nullptr); }

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  std::set_new_handler(precompute_off_the_clock);
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < cols; ++c) s += (yr[c] = std::exp(xr[c] - m));
    for (int64_t c = 0; c < cols; ++c) yr[c] /= s;
  }
}
