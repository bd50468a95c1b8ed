// Control: an honest softmax with an AVX2+FMA path written with <immintrin.h> intrinsics in a function
// marked [[gnu::target("avx2,fma")]] (the standard attribute spelling), chosen per call by
// __builtin_cpu_supports through a function pointer picked by a lambda, with a portable fallback. It must pass.
// expect: passed
// expect-without-rules: passed
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <initializer_list>

namespace {
using RowKernel = void (*)(const float*, float*, int64_t);

void row_portable(const float* in, float* out, int64_t n) {
  float peak = -INFINITY, total = 0;
  for (int64_t c = 0; c < n; ++c) peak = std::fmax(peak, in[c]);
  for (int64_t c = 0; c < n; ++c) total += out[c] = std::exp(in[c] - peak);
  for (int64_t c = 0; c < n; ++c) out[c] /= total;
}

[[gnu::target("avx2,fma")]] __m256 exp8(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
  const __m256 n = _mm256_round_ps(_mm256_mul_ps(x, _mm256_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.693147181f), x);
  __m256 p = _mm256_set1_ps(1.0f / 720);
  for (const float k : {1.0f / 120, 1.0f / 24, 1.0f / 6, 0.5f, 1.0f, 1.0f}) p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(k));
  const __m256i scale = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(scale));
}

[[gnu::target("avx2,fma")]] void row_avx2(const float* in, float* out, int64_t n) {
  __m256 peak8 = _mm256_set1_ps(-INFINITY);
  int64_t c = 0;
  for (; c + 8 <= n; c += 8) peak8 = _mm256_max_ps(peak8, _mm256_loadu_ps(in + c));
  alignas(32) float lanes[8];
  _mm256_store_ps(lanes, peak8);
  float peak = lanes[0];
  for (int i = 1; i < 8; ++i) peak = std::fmax(peak, lanes[i]);
  for (int64_t t = c; t < n; ++t) peak = std::fmax(peak, in[t]);
  __m256 sum8 = _mm256_setzero_ps();
  const __m256 peak_v = _mm256_set1_ps(peak);
  for (c = 0; c + 8 <= n; c += 8) {
    const __m256 e = exp8(_mm256_sub_ps(_mm256_loadu_ps(in + c), peak_v));
    _mm256_storeu_ps(out + c, e);
    sum8 = _mm256_add_ps(sum8, e);
  }
  _mm256_store_ps(lanes, sum8);
  float total = 0;
  for (float v : lanes) total += v;
  for (int64_t t = c; t < n; ++t) total += out[t] = std::exp(in[t] - peak);
  const __m256 inverse = _mm256_set1_ps(1.0f / total);
  for (c = 0; c + 8 <= n; c += 8) _mm256_storeu_ps(out + c, _mm256_mul_ps(_mm256_loadu_ps(out + c), inverse));
  for (int64_t t = c; t < n; ++t) out[t] /= total;
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const RowKernel row = [] {
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") ? row_avx2 : row_portable;
  }();
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) row(x + r * cols, y + r * cols, cols);
}
