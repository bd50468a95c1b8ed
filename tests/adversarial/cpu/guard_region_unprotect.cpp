// 5: makes the runner's guard page (0x10000, where it keeps the vtable pointer of its device object and the table
// of held code pointers, runner/sandbox.hpp) writable again, to point its checks at a vtable of its own. The
// system-call filter refuses any protection change starting in or below the guard region (and kills the runner).
// expect: rejected
// expect-without-rules: runtime_error
#include <sys/mman.h>

#include <cmath>
#include <cstdint>

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  static bool tried = false;
  if (!tried) {
    tried = true;
    mprotect(reinterpret_cast<void*>(uintptr_t(0x10000)), 4096, PROT_READ | PROT_WRITE);
  }
  for (int64_t r = 0; r < rows; ++r) {
    const float* xr = x + r * cols;
    float* yr = y + r * cols;
    float m = -INFINITY, sum = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, xr[c]);
    for (int64_t c = 0; c < cols; ++c) sum += (yr[c] = std::exp(xr[c] - m));
    for (int64_t c = 0; c < cols; ++c) yr[c] /= sum;
  }
}
