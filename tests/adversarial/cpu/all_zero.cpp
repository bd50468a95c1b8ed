// 2: all zeros, which loose absolute tolerances let through for small softmax values.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cstdint>
#include <cstring>
extern "C" void softmax(const float*, float* y, int64_t rows, int64_t cols) {
  std::memset(y, 0, sizeof(float) * size_t(rows * cols));
}
