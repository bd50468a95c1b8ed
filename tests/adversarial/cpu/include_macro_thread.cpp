// 4: returns at once and lets a detached thread do the work (as async_thread.cpp), but includes
// <thread> through a macro, which a check of the text's #include lines does not see, and names
// nothing a text rule knows. The preprocessor's line markers show what is really included, and
// the library imports std::thread's start. Without the rules the sandbox refuses the new thread:
// std::thread throws, which ends the call.
// expect: rejected
// expect-without-rules: runtime_error
#include <cmath>
#include <cstdint>
#define THREADS <thread>
#include THREADS
using namespace std;
extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  thread([=] {
    volatile long spin = 0;
    for (long i = 0; i < 20000000; ++i) spin = spin + 1;  // finish well after the harness looks
    for (int64_t r = 0; r < rows; ++r) {
      float m = -INFINITY, s = 0;
      for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[r * cols + c]);
      for (int64_t c = 0; c < cols; ++c) s += std::exp(x[r * cols + c] - m);
      for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[r * cols + c] - m) / s;
    }
  }).detach();
}
