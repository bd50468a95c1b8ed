// Control: an honest softmax whose passes are `#pragma omp simd` loops with max and sum reductions,
// staging each row's exponentials in an alignas(64) stack tile, with std::fma in the polynomial.
// It must pass.
// expect: passed
// expect-without-rules: passed
#include <cmath>
#include <cstdint>

namespace {
constexpr int64_t kTile = 1024;

#pragma omp declare simd notinbranch
inline float exp_poly(float x) {  // e^x = 2^n * e^r, |r| <= ln2/2, degree-6 polynomial
  x = std::fmax(x, -87.0f);
  const float n = std::nearbyint(x * 1.44269504f);
  const float r = std::fma(n, -0.693147181f, x);
  float p = 1.0f / 720;
  p = std::fma(p, r, 1.0f / 120);
  p = std::fma(p, r, 1.0f / 24);
  p = std::fma(p, r, 1.0f / 6);
  p = std::fma(p, r, 0.5f);
  p = std::fma(p, r, 1.0f);
  p = std::fma(p, r, 1.0f);
  return std::ldexp(p, int(n));
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * cols;
    float* out = y + r * cols;
    float peak = -INFINITY;
#pragma omp simd reduction(max : peak)
    for (int64_t c = 0; c < cols; ++c) peak = std::fmax(peak, in[c]);
    float total = 0;
    alignas(64) float tile[kTile];
    for (int64_t start = 0; start < cols; start += kTile) {
      const int64_t len = std::min(kTile, cols - start);
#pragma omp simd reduction(+ : total)
      for (int64_t c = 0; c < len; ++c) {
        tile[c] = exp_poly(in[start + c] - peak);
        total += tile[c];
      }
      for (int64_t c = 0; c < len; ++c) out[start + c] = tile[c];
    }
    const float inverse = 1.0f / total;
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) out[c] *= inverse;
  }
}
