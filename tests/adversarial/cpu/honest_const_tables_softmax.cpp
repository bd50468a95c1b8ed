// Control: an honest softmax whose exp reads constant tables declared in every order the language
// allows (static constexpr, const static, constexpr static, a const pointer to a const table), its bits
// through std::bit_cast and a union. Constant statics are no state: it must pass.
// expect: passed
// expect-without-rules: passed
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>

namespace fastexp {
constexpr static int kBits = 6;
constexpr int kSize = 1 << kBits;

constexpr double pow2_frac(int i) {  // 2^(i/64) by repeated square roots is not constexpr: a series
  double x = double(i) / kSize * 0.6931471805599453, term = 1, sum = 1;
  for (int k = 1; k < 20; ++k) sum += (term *= x / k);
  return sum;
}

constexpr auto make_table() {
  std::array<uint32_t, kSize> t{};
  for (int i = 0; i < kSize; ++i) t[i] = std::bit_cast<uint32_t>(float(pow2_frac(i))) - (uint32_t(i) << (23 - kBits));
  return t;
}

static constexpr std::array<uint32_t, kSize> kTable = make_table();
static const uint32_t* const kTableData = kTable.data();
const static float kLog2e = 1.44269504088896341f;

union FloatBits {
  float f;
  uint32_t u;
};

inline float exp_approx(float x) {
  if (x < -87.0f) return 0.0f;
  const float t = x * kLog2e * kSize;
  const float n = std::nearbyint(t);
  const float r = (t - n) * (0.6931471805599453f / kSize);
  const int32_t ni = int32_t(n);
  const float p = 1.0f + r * (1.0f + r * (0.5f + r * (1.0f / 6)));
  FloatBits b;
  b.u = kTableData[size_t(ni & (kSize - 1))] + (uint32_t(ni) << (23 - kBits));
  return b.f * p;
}
}  // namespace fastexp

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  using fastexp::exp_approx;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* row_in = x + r * cols;
    float* row_out = y + r * cols;
    const float peak = *std::max_element(row_in, row_in + cols);
    float total = 0;
    for (int64_t c = 0; c < cols; ++c) total += row_out[c] = exp_approx(row_in[c] - peak);
    std::transform(row_out, row_out + cols, row_out, [scale = 1.0f / total](float e) { return e * scale; });
  }
}
