// 1, 6: counts its calls in the main thread's floating-point control register (MXCSR's denormals-are-zero and
// flush-to-zero bits, set with an allowed intrinsic): register state that no reset of memory reaches, and that the
// reference, computed in ksearch's process, never sees. It computes only in the runner's first call and writes a cheap
// guess after: the second trial is checked like the first, so it fails.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <xmmintrin.h>

#include <cmath>
#include <cstdint>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  constexpr unsigned kDaz = 1u << 6, kFtz = 1u << 15;
  const unsigned csr = _mm_getcsr();
  const unsigned calls = (csr & kDaz ? 1 : 0) + (csr & kFtz ? 2 : 0);
  if (calls < 3) _mm_setcsr((csr & ~(kDaz | kFtz)) | ((calls + 1) & 1 ? kDaz : 0) | ((calls + 1) & 2 ? kFtz : 0));
  if (calls > 0) {
    for (int64_t i = 0; i < rows * cols; ++i) y[i] = 1.0f / float(cols);
    return;
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(xr[c] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(xr[c] - m) / s;
  }
}
