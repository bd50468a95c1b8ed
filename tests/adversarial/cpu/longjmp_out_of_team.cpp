// 4: leaves its parallel region early with __builtin_longjmp (a compiler builtin: no import, no name a rule knows): the
// main thread jumps back to the entry and returns while the workers are still computing their rows, off the clock (they
// read their arguments from globals: the region's shared data on the main thread's stack is gone once it returns). The
// runner finds the call returned inside an OpenMP team (libgomp still counts the main thread in the region).
// expect: runtime_error
// expect-without-rules: runtime_error
// expect-message: returned inside an OpenMP parallel region
#include <omp.h>

#include <cmath>
#include <cstdint>

const float* input;
float* output;
int64_t row_count, row_length;

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  input = x, output = y, row_count = rows, row_length = cols;
  void* resume[5];
  if (__builtin_setjmp(resume)) return;
#pragma omp parallel
  {
    const int threads = omp_get_num_threads(), id = omp_get_thread_num();
    if (id == 0 && threads > 1) __builtin_longjmp(resume, 1);
    const int first = threads > 1 ? 1 : 0;
    for (int64_t r = id - first; r < row_count; r += threads - first) {
      const float* xr = input + r * row_length;
      float m = -INFINITY, s = 0;
      for (int64_t c = 0; c < row_length; ++c) m = std::fmax(m, xr[c]);
      for (int64_t c = 0; c < row_length; ++c) s += std::exp(xr[c] - m);
      for (int64_t c = 0; c < row_length; ++c) output[r * row_length + c] = std::exp(xr[c] - m) / s;
    }
  }
}
