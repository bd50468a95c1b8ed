// 6: reproduces the inputs from a guessed seed instead of reading them.
// expect: rejected
// expect-without-rules: wrong_answer
#include <cmath>
#include <cstdint>
#include <vector>
#include <random>
extern "C" void softmax(const float*, float* y, int64_t rows, int64_t cols) {
  std::mt19937_64 rng(0);
  std::normal_distribution<double> dist(0.0, 4.0);
  std::vector<float> x(size_t(rows * cols));
  for (auto& v : x) v = float(dist(rng));
  for (int64_t r = 0; r < rows; ++r) {
    float m = -INFINITY, s = 0;
    for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[size_t(r * cols + c)]);
    for (int64_t c = 0; c < cols; ++c) s += std::exp(x[size_t(r * cols + c)] - m);
    for (int64_t c = 0; c < cols; ++c) y[r * cols + c] = std::exp(x[size_t(r * cols + c)] - m) / s;
  }
}
