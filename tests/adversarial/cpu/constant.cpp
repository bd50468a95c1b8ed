// 2: the mean value 1/cols everywhere.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cstdint>
extern "C" void softmax(const float*, float* y, int64_t rows, int64_t cols) {
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = 1.0f / float(cols);
}
