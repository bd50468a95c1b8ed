// Test seed: recomputes the result PASSES times, a stand-in for wasted work that the built-in
// proposer's knob search can remove (PASSES = 1 is about four times faster); CHUNK only changes
// the loop structure.
#include <algorithm>
#include <cmath>
#include <cstdint>

constexpr int PASSES = 4;        // ksearch:knob PASSES = 4 in [1, 2, 4, 8]
constexpr int64_t CHUNK = 4096;  // ksearch:knob CHUNK = 4096 in [1024, 4096, 16384]

extern "C" void exp_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  const int64_t n = rows * cols;
  for (int p = 0; p < PASSES; ++p)
    for (int64_t begin = 0; begin < n; begin += CHUNK)
      for (int64_t i = begin; i < std::min(begin + CHUNK, n); ++i) y[i] = std::exp(x[i]);
}
