// 11: grows the main thread's stack far past its limit (a 256 MiB local array it touches page by page), hoping to run
// into another mapping rather than the guard page below the stack. The kernel's stack guard gap stops it: the runner
// dies of SIGSEGV, and the evaluation is a runtime_error.
// expect: runtime_error
// expect-without-rules: runtime_error
// expect-message: segmentation fault
#include <cstddef>
#include <cstdint>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  volatile unsigned char frame[std::size_t(256) << 20];
  for (std::size_t i = sizeof frame; i > 0; i -= 4096) frame[i - 1] = 1;
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = x[i] * frame[4095];
}
