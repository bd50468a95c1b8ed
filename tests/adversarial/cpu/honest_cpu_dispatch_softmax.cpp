// Control: an honest softmax that picks an AVX2+FMA path at run time (__builtin_cpu_supports and
// target("avx2,fma") functions) over a scalar fallback. libgcc's __cpu_indicator_init, which the check
// links into .init_array, is the toolchain's load-time code, not the candidate's: it must pass.
// expect: passed
// expect-without-rules: passed
#include <immintrin.h>
#include <omp.h>
#include <cmath>
#include <cstdint>

static inline float hmax256(__m256 v) {
  __m128 lo = _mm256_castps256_ps128(v), hi = _mm256_extractf128_ps(v, 1);
  lo = _mm_max_ps(lo, hi);
  lo = _mm_max_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_max_ss(lo, _mm_shuffle_ps(lo, lo, 1));
  return _mm_cvtss_f32(lo);
}

__attribute__((target("avx2,fma"))) static inline float hsum256(__m256 v) {
  __m128 lo = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  lo = _mm_add_ps(lo, _mm_movehl_ps(lo, lo));
  lo = _mm_add_ss(lo, _mm_shuffle_ps(lo, lo, 1));
  return _mm_cvtss_f32(lo);
}

// exp(x) for x <= 0 by range reduction and a degree-5 polynomial.
__attribute__((target("avx2,fma"))) static inline __m256 exp256(__m256 x) {
  x = _mm256_max_ps(x, _mm256_set1_ps(-87.0f));
  const __m256 t = _mm256_mul_ps(x, _mm256_set1_ps(1.44269504f));
  const __m256 n = _mm256_round_ps(t, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256 r = _mm256_fnmadd_ps(n, _mm256_set1_ps(0.69314718f), x);
  __m256 p = _mm256_set1_ps(1.0f / 120);
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 24));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f / 6));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(0.5f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  p = _mm256_fmadd_ps(p, r, _mm256_set1_ps(1.0f));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}

__attribute__((target("avx2,fma"))) static void row_avx2(const float* x, float* y, int64_t cols) {
  __m256 vm = _mm256_set1_ps(-INFINITY);
  int64_t c = 0;
  for (; c + 8 <= cols; c += 8) vm = _mm256_max_ps(vm, _mm256_loadu_ps(x + c));
  float m = hmax256(vm);
  for (; c < cols; ++c) m = std::fmax(m, x[c]);
  const __m256 vmax = _mm256_set1_ps(m);
  __m256 vs = _mm256_setzero_ps();
  for (c = 0; c + 8 <= cols; c += 8) {
    const __m256 e = exp256(_mm256_sub_ps(_mm256_loadu_ps(x + c), vmax));
    _mm256_storeu_ps(y + c, e);
    vs = _mm256_add_ps(vs, e);
  }
  float s = hsum256(vs);
  for (; c < cols; ++c) s += (y[c] = std::exp(x[c] - m));
  const __m256 inv = _mm256_set1_ps(1.0f / s);
  for (c = 0; c + 8 <= cols; c += 8) _mm256_storeu_ps(y + c, _mm256_mul_ps(_mm256_loadu_ps(y + c), inv));
  for (; c < cols; ++c) y[c] *= 1.0f / s;
}

static void row_scalar(const float* x, float* y, int64_t cols) {
  float m = -INFINITY;
  for (int64_t c = 0; c < cols; ++c) m = std::fmax(m, x[c]);
  float s = 0;
  for (int64_t c = 0; c < cols; ++c) s += (y[c] = std::exp(x[c] - m));
  for (int64_t c = 0; c < cols; ++c) y[c] /= s;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    if (avx2) row_avx2(x + r * cols, y + r * cols, cols);
    else row_scalar(x + r * cols, y + r * cols, cols);
  }
}
