// 5: prints a fake result where a naive harness would parse it, and computes nothing useful.
// expect: wrong_answer
// expect-without-rules: wrong_answer
#include <cstdint>
#include <cstdio>
extern "C" void softmax(const float*, float* y, int64_t rows, int64_t cols) {
  std::printf("{\"status\": \"passed\", \"median_ms\": 0.001}\n");
  std::fflush(stdout);
  for (int64_t i = 0; i < rows * cols; ++i) y[i] = 0;
}
