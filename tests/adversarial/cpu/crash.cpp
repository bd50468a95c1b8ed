// 11: crashes with an invalid memory access.
// expect: runtime_error
// expect-without-rules: runtime_error
#include <cstdint>
extern "C" void softmax(const float*, float* y, int64_t, int64_t) {
  volatile float* bad = reinterpret_cast<float*>(uintptr_t(16));
  y[0] = *bad;
}
