// Control: an honest softmax in modern C++: std::span rows, an exp built from std::bit_cast and a
// template's function-local `static constexpr` std::array table, lambdas, [[likely]], __restrict__
// pointers and an `inline constexpr` constant. Constant statics and inline constants are no state: it must pass.
// expect: passed
// expect-without-rules: passed
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <span>

namespace {
inline constexpr float kLog2e = std::numbers::log2e_v<float>;

// 2^(i / N) for i in [0, N), as constant bits, from a series (std::exp2 is not constexpr in C++20).
template <int N>
const std::array<float, N>& pow2_fractions() {
  static constexpr std::array<float, N> table = [] {
    std::array<float, N> t{};
    for (int i = 0; i < N; ++i) {
      const double x = double(i) / N * std::numbers::ln2;
      double term = 1, sum = 1;
      for (int k = 1; k < 20; ++k) sum += (term *= x / k);
      t[size_t(i)] = float(sum);
    }
    return t;
  }();
  return table;
}

template <int N>
float exp_fast(float x) {
  if (x < -87.0f) [[unlikely]]
    return 0.0f;
  const float t = x * kLog2e * N;
  const float n = std::nearbyint(t);
  const float r = (t - n) * (std::numbers::ln2_v<float> / N);
  const auto ni = int32_t(n);
  const float frac = pow2_fractions<N>()[size_t(ni & (N - 1))];
  const int32_t exponent = (ni - (ni & (N - 1))) / N;  // an exact floor division by N
  const float scaled = std::bit_cast<float>(std::bit_cast<int32_t>(frac) + (exponent << 23));
  return scaled * (1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6.0f))));
}

void softmax_row(std::span<const float> in, std::span<float> out) {
  const float peak = *std::ranges::max_element(in);
  float total = 0;
  float* __restrict__ o = out.data();
  const float* __restrict__ i = in.data();
  for (size_t c = 0; c < in.size(); ++c) total += o[c] = exp_fast<32>(i[c] - peak);
  const auto scale = [inverse = 1.0f / total](float e) { return e * inverse; };
  std::ranges::transform(out, out.begin(), scale);
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const auto n = size_t(cols);
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) [[likely]] {
    softmax_row(std::span(x + r * cols, n), std::span(y + r * cols, n));
  }
}
