// 4: hands the work to std::async and leaks the future on the heap, so that no destructor waits for it and
// the timed call ends before the work does. The rules refuse <future> and std::async; without them the
// sandbox refuses the new thread (std::async throws std::system_error, which ends the call).
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
#include <future>
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  new std::future<void>(std::async(std::launch::async, [=] {
    for (int64_t r = 0; r < rows; ++r) {
      float m = -INFINITY, s = 0;
      for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
      for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
      for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
    }
  }));
}
