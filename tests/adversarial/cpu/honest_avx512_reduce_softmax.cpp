// Control: an honest softmax with an AVX-512 path (masked loads and stores for the row's tail,
// _mm512_reduce_max_ps / _mm512_reduce_add_ps, _mm512_scalef_ps) in a function marked
// __attribute__((target("avx512f"))), taken only where __builtin_cpu_supports says the CPU has it. It must pass.
// expect: passed
// expect-without-rules: passed
#include <immintrin.h>

#include <cmath>
#include <cstdint>

namespace {
void row_scalar(const float* in, float* out, int64_t n) {
  float peak = -INFINITY, total = 0;
  for (int64_t c = 0; c < n; ++c) peak = std::fmax(peak, in[c]);
  for (int64_t c = 0; c < n; ++c) total += out[c] = std::exp(in[c] - peak);
  for (int64_t c = 0; c < n; ++c) out[c] /= total;
}

__attribute__((target("avx512f"))) inline __m512 exp16(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-87.0f));
  const __m512 n = _mm512_roundscale_ps(_mm512_mul_ps(x, _mm512_set1_ps(1.44269504f)), _MM_FROUND_TO_NEAREST_INT);
  const __m512 r = _mm512_fnmadd_ps(n, _mm512_set1_ps(0.693147181f), x);
  __m512 p = _mm512_set1_ps(1.0f / 720);
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 120));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 24));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f / 6));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(1.0f));
  return _mm512_scalef_ps(p, n);
}

__attribute__((target("avx512f"))) void row_avx512(const float* in, float* out, int64_t n) {
  __m512 peak16 = _mm512_set1_ps(-INFINITY);
  for (int64_t c = 0; c < n; c += 16) {
    const __mmask16 live = n - c >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - c)) - 1);
    peak16 = _mm512_mask_max_ps(peak16, live, peak16, _mm512_maskz_loadu_ps(live, in + c));
  }
  const __m512 peak = _mm512_set1_ps(_mm512_reduce_max_ps(peak16));
  __m512 sum16 = _mm512_setzero_ps();
  for (int64_t c = 0; c < n; c += 16) {
    const __mmask16 live = n - c >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - c)) - 1);
    const __m512 e = exp16(_mm512_sub_ps(_mm512_maskz_loadu_ps(live, in + c), peak));
    _mm512_mask_storeu_ps(out + c, live, e);
    sum16 = _mm512_mask_add_ps(sum16, live, sum16, e);
  }
  const __m512 inverse = _mm512_set1_ps(1.0f / _mm512_reduce_add_ps(sum16));
  for (int64_t c = 0; c < n; c += 16) {
    const __mmask16 live = n - c >= 16 ? __mmask16(0xffff) : __mmask16((1u << (n - c)) - 1);
    _mm512_mask_storeu_ps(out + c, live, _mm512_mul_ps(_mm512_maskz_loadu_ps(live, out + c), inverse));
  }
}
}  // namespace

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
  const bool wide = __builtin_cpu_supports("avx512f");
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    if (wide)
      row_avx512(x + r * cols, y + r * cols, cols);
    else
      row_scalar(x + r * cols, y + r * cols, cols);
  }
}
