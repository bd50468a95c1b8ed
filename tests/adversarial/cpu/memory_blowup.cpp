// 11: allocates and touches memory until something gives.
// expect: runtime_error
// expect-without-rules: runtime_error
#include <cstdint>
#include <cstdlib>
extern "C" void softmax(const float*, float* y, int64_t, int64_t) {
  const size_t bytes = size_t(1) << 40;  // 1 TiB: more than any memory limit
  // volatile: the compiler may not elide an allocation whose every byte is touched.
  volatile char* block = static_cast<char*>(std::malloc(bytes));
  for (size_t i = 0; i < bytes; i += 4096) block[i] = 1;  // a refused malloc returns NULL: this then crashes
  y[0] = block[12345];
}
