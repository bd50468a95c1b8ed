// Test seed: recomputes the result PASSES times, a stand-in for wasted work that the built-in
// proposer's knob search can remove (PASSES = 1 is about four times faster).
#include <cmath>
#include <cstdint>

constexpr int PASSES = 4;  // ksearch:knob PASSES = 4 in [1, 2, 4, 8]

extern "C" void exp_rows(const float* x, float* y, int64_t rows, int64_t cols) {
  for (int p = 0; p < PASSES; ++p)
    for (int64_t i = 0; i < rows * cols; ++i) y[i] = std::exp(x[i]);
}
