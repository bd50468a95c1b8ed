#pragma once
// The vector layer of the cpu templates: type vf holding VW floats, v_* helpers, and a range-reduced
// polynomial exp (v_exp<degree> on vectors, s_exp<degree> on scalars). Uses the widest path that
// VECTOR_BITS (a family's knob: 512, 256 or 0; scalar when undefined) and the target machine allow (512 bits
// with AVX512F and DQ, which every AVX-512 core since Skylake has).
#include <bit>
#include <cstdint>

#if (VECTOR_BITS >= 512 && defined(__AVX512F__) && defined(__AVX512DQ__)) || (VECTOR_BITS >= 256 && defined(__AVX2__) && defined(__FMA__))
#include <immintrin.h>
#endif

// Taylor coefficients of exp: accurate enough after range reduction, and exactly reproducible.
constexpr float kExpCoef[8] = {1.0f, 1.0f, 0.5f, 1.0f / 6, 1.0f / 24, 1.0f / 120, 1.0f / 720, 1.0f / 5040};
constexpr float kLog2e = 1.44269504088896341f, kLn2Hi = 0.693359375f, kLn2Lo = -2.12194440e-4f;
// exp underflows to (almost) zero below this; clamping keeps 2^n a normal float.
constexpr float kExpLo = -87.3f, kExpHi = 88.3f;

template <int D>
inline float s_exp(float x) {
  x = x < kExpLo ? kExpLo : (x > kExpHi ? kExpHi : x);
  const float n = (x * kLog2e + 12582912.0f) - 12582912.0f;  // round to nearest, vectorizable
  float r = x - n * kLn2Hi;
  r = r - n * kLn2Lo;
  float p = kExpCoef[D];
  for (int k = D - 1; k >= 0; --k) p = p * r + kExpCoef[k];
  return p * std::bit_cast<float>((int32_t(n) + 127) << 23);
}

// 2^f for f in [-1/2, 1/2]: the polynomials of degree 5 to 7 with the least maximum relative error (Remez;
// 2.3e-7, 1e-7 and 9e-8 in float, the last two at float's own rounding); kExp2Coef.c[D] holds degree D's.
// Degree 4 (2.7e-6) is not offered: its error does not vanish at f = 0, and in the scan's decays near 1 it
// accumulates over the long memory to 1.9e-4 (over the task's tolerance; Taylor's degree 5, exact at 0, 6e-5).
struct Exp2Coefficients {
  float c[8][8];
};
constexpr Exp2Coefficients kExp2Coef = {{{}, {}, {}, {}, {},
                                         {1.00000012f, 0.693146944f, 0.240221202f, 0.0555071309f, 0.00967554096f,
                                          0.00132764725f},
                                         {1.0f, 0.693147182f, 0.240226462f, 0.0555032864f, 0.00961848907f,
                                          0.00133999309f, 0.000153458124f},
                                         {1.0f, 0.693147182f, 0.240226507f, 0.0555041023f, 0.00961802714f,
                                          0.00133339223f, 0.000154692912f, 1.52019211e-05f}}};
// The same polynomials for f in [0, 1): 2^f = sqrt(2) 2^(f - 1/2), expanded in f.
constexpr Exp2Coefficients kExp2UnitCoef = [] {
  Exp2Coefficients out{};
  for (int d = 5; d <= 7; ++d)
    for (int k = 0; k <= d; ++k) {
      double sum = 0, binomial = 1;  // binomial = C(j, k) for j = k, k + 1, ...
      for (int j = k; j <= d; ++j) {
        double shift = 1;
        for (int i = 0; i < j - k; ++i) shift *= -0.5;
        sum += double(kExp2Coef.c[d][j]) * binomial * shift;
        binomial = binomial * (j + 1) / (j + 1 - k);
      }
      out.c[d][k] = float(1.4142135623730951 * sum);
    }
  return out;
}();
// exp2 clamps its argument here when it builds 2^n from exponent bits.
constexpr float kExp2Lo = -126.0f, kExp2Hi = 127.0f;

// 2^(a b): a caller scaling exp(x a) as 2^(x (a log2 e)) pays one multiply for both.
template <int D>
inline float s_exp2_product(float a, float b) {
  static_assert(D >= 5 && D <= 7, "exp2 polynomials have degree 5 to 7");
  float y = a * b;
  y = y < kExp2Lo ? kExp2Lo : (y > kExp2Hi ? kExp2Hi : y);
  const float n = (y + 12582912.0f) - 12582912.0f;
  const float f = y - n;
  float p = kExp2Coef.c[D][D];
  for (int k = D - 1; k >= 0; --k) p = p * f + kExp2Coef.c[D][k];
  return p * std::bit_cast<float>((int32_t(n) + 127) << 23);
}

#if VECTOR_BITS >= 512 && defined(__AVX512F__) && defined(__AVX512DQ__)
typedef __m512 vf;
constexpr int VW = 16;
typedef __m512i vi;  // lane offsets for gathers
// Offsets i * stride of lanes i < count; the lanes past count repeat the last one (stay in bounds).
inline vi v_offsets(int64_t stride, int count) {
  const __m512i lane = _mm512_min_epi32(_mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15), _mm512_set1_epi32(count - 1));
  return _mm512_mullo_epi32(lane, _mm512_set1_epi32(int32_t(stride)));
}
inline vf v_gather(const float* p, vi offsets) { return _mm512_i32gather_ps(offsets, p, 4); }
inline vf v_load(const float* p) { return _mm512_loadu_ps(p); }
inline void v_store(float* p, vf v) { _mm512_storeu_ps(p, v); }
inline void v_stream(float* p, vf v) { _mm512_stream_ps(p, v); }
inline vf v_set1(float x) { return _mm512_set1_ps(x); }
inline vf v_add(vf a, vf b) { return _mm512_add_ps(a, b); }
inline vf v_sub(vf a, vf b) { return _mm512_sub_ps(a, b); }
inline vf v_mul(vf a, vf b) { return _mm512_mul_ps(a, b); }
inline vf v_div(vf a, vf b) { return _mm512_div_ps(a, b); }
inline vf v_fma(vf a, vf b, vf c) { return _mm512_fmadd_ps(a, b, c); }
inline vf v_max(vf a, vf b) { return _mm512_max_ps(a, b); }
inline vf v_min(vf a, vf b) { return _mm512_min_ps(a, b); }
inline float v_hsum(vf v) { return _mm512_reduce_add_ps(v); }
inline float v_hmax(vf v) { return _mm512_reduce_max_ps(v); }
inline bool v_any_greater(vf a, vf b) { return _mm512_cmp_ps_mask(a, b, _CMP_GT_OQ) != 0; }
// v's first `count` lanes (0 to VW), the others `fill`.
inline vf v_first_lanes(vf v, int count, float fill) { return _mm512_mask_mov_ps(v_set1(fill), __mmask16((1u << count) - 1), v); }
inline void v_sfence() { _mm_sfence(); }
// Transposes a VW x VW tile in registers: r[i] lane j becomes r[j] lane i (four rounds of 16 shuffles).
inline void v_transpose(vf (&r)[VW]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]), t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  const auto pairs = [](__m512 a, __m512 b, bool high) {
    const __m512d x = _mm512_castps_pd(a), y = _mm512_castps_pd(b);
    return _mm512_castpd_ps(high ? _mm512_unpackhi_pd(x, y) : _mm512_unpacklo_pd(x, y));
  };
  for (int i = 0; i < 16; i += 4)
    r[i] = pairs(t[i], t[i + 2], false), r[i + 1] = pairs(t[i], t[i + 2], true), r[i + 2] = pairs(t[i + 1], t[i + 3], false),
    r[i + 3] = pairs(t[i + 1], t[i + 3], true);
  for (int i = 0; i < 16; i += 8)
    for (int j = 0; j < 4; ++j)
      t[i + j] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0x88), t[i + j + 4] = _mm512_shuffle_f32x4(r[i + j], r[i + j + 4], 0xdd);
  for (int j = 0; j < 8; ++j) r[j] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0x88), r[j + 8] = _mm512_shuffle_f32x4(t[j], t[j + 8], 0xdd);
}
template <int D>
inline vf v_exp(vf x) {
  x = _mm512_min_ps(_mm512_max_ps(x, v_set1(kExpLo)), v_set1(kExpHi));
  const vf n = _mm512_roundscale_ps(_mm512_mul_ps(x, v_set1(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  vf r = _mm512_fnmadd_ps(n, v_set1(kLn2Hi), x);
  r = _mm512_fnmadd_ps(n, v_set1(kLn2Lo), r);
  vf p = v_set1(kExpCoef[D]);
  for (int k = D - 1; k >= 0; --k) p = _mm512_fmadd_ps(p, r, v_set1(kExpCoef[k]));
  return _mm512_scalef_ps(p, n);
}
// reduce gives f = y - floor(y) in [0, 1) and scalef multiplies by 2^floor(y) with the IEEE overflow and
// underflow (no clamp, no rounding step): D + 3 instructions.
template <int D>
inline vf v_exp2_product(vf a, vf b) {
  static_assert(D >= 5 && D <= 7, "exp2 polynomials have degree 5 to 7");
  const vf y = _mm512_mul_ps(a, b);
  const vf f = _mm512_reduce_ps(y, _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  vf p = v_set1(kExp2UnitCoef.c[D][D]);
  for (int k = D - 1; k >= 0; --k) p = _mm512_fmadd_ps(p, f, v_set1(kExp2UnitCoef.c[D][k]));
  return _mm512_scalef_ps(p, y);
}
#elif VECTOR_BITS >= 256 && defined(__AVX2__) && defined(__FMA__)
typedef __m256 vf;
constexpr int VW = 8;
typedef __m256i vi;
inline vi v_offsets(int64_t stride, int count) {
  const __m256i lane = _mm256_min_epi32(_mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7), _mm256_set1_epi32(count - 1));
  return _mm256_mullo_epi32(lane, _mm256_set1_epi32(int32_t(stride)));
}
inline vf v_gather(const float* p, vi offsets) { return _mm256_i32gather_ps(p, offsets, 4); }
inline vf v_load(const float* p) { return _mm256_loadu_ps(p); }
inline void v_store(float* p, vf v) { _mm256_storeu_ps(p, v); }
inline void v_stream(float* p, vf v) { _mm256_stream_ps(p, v); }
inline vf v_set1(float x) { return _mm256_set1_ps(x); }
inline vf v_add(vf a, vf b) { return _mm256_add_ps(a, b); }
inline vf v_sub(vf a, vf b) { return _mm256_sub_ps(a, b); }
inline vf v_mul(vf a, vf b) { return _mm256_mul_ps(a, b); }
inline vf v_div(vf a, vf b) { return _mm256_div_ps(a, b); }
inline vf v_fma(vf a, vf b, vf c) { return _mm256_fmadd_ps(a, b, c); }
inline vf v_max(vf a, vf b) { return _mm256_max_ps(a, b); }
inline vf v_min(vf a, vf b) { return _mm256_min_ps(a, b); }
inline float v_hsum(vf v) {
  __m128 s = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_add_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_add_ss(s, _mm_movehdup_ps(s)));
}
inline float v_hmax(vf v) {
  __m128 s = _mm_max_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  s = _mm_max_ps(s, _mm_movehl_ps(s, s));
  return _mm_cvtss_f32(_mm_max_ss(s, _mm_movehdup_ps(s)));
}
inline bool v_any_greater(vf a, vf b) { return _mm256_movemask_ps(_mm256_cmp_ps(a, b, _CMP_GT_OQ)) != 0; }
inline vf v_first_lanes(vf v, int count, float fill) {
  const __m256i inside = _mm256_cmpgt_epi32(_mm256_set1_epi32(count), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  return _mm256_blendv_ps(v_set1(fill), v, _mm256_castsi256_ps(inside));
}
inline void v_sfence() { _mm_sfence(); }
// Transposes a VW x VW tile in registers: r[i] lane j becomes r[j] lane i (three rounds of 8 shuffles).
inline void v_transpose(vf (&r)[VW]) {
  __m256 t[8];
  for (int i = 0; i < 8; i += 2) t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]), t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  for (int i = 0; i < 8; i += 4)
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44), r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xee),
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44), r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xee);
  for (int j = 0; j < 4; ++j) t[j] = _mm256_permute2f128_ps(r[j], r[j + 4], 0x20), t[j + 4] = _mm256_permute2f128_ps(r[j], r[j + 4], 0x31);
  for (int j = 0; j < 8; ++j) r[j] = t[j];
}
template <int D>
inline vf v_exp(vf x) {
  x = _mm256_min_ps(_mm256_max_ps(x, v_set1(kExpLo)), v_set1(kExpHi));
  const vf n = _mm256_round_ps(_mm256_mul_ps(x, v_set1(kLog2e)), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  vf r = _mm256_fnmadd_ps(n, v_set1(kLn2Hi), x);
  r = _mm256_fnmadd_ps(n, v_set1(kLn2Lo), r);
  vf p = v_set1(kExpCoef[D]);
  for (int k = D - 1; k >= 0; --k) p = _mm256_fmadd_ps(p, r, v_set1(kExpCoef[k]));
  const __m256i e = _mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23);
  return _mm256_mul_ps(p, _mm256_castsi256_ps(e));
}
// n sits in the low mantissa bits of y + 1.5 * 2^23, so shifting them into the exponent field and adding
// scales p by 2^n. y is clamped from below only, so that 2^n stays a normal float: the callers keep a b at
// most kExp2Hi (where exp2 overflows float), and one instruction less counts in the scan's recurrence.
template <int D>
inline vf v_exp2_product(vf a, vf b) {
  static_assert(D >= 5 && D <= 7, "exp2 polynomials have degree 5 to 7");
  const vf y = _mm256_max_ps(_mm256_mul_ps(a, b), v_set1(kExp2Lo));
  const vf magic = v_set1(12582912.0f);
  const vf shifted = _mm256_add_ps(y, magic);
  const vf f = _mm256_sub_ps(y, _mm256_sub_ps(shifted, magic));
  vf p = v_set1(kExp2Coef.c[D][D]);
  for (int k = D - 1; k >= 0; --k) p = _mm256_fmadd_ps(p, f, v_set1(kExp2Coef.c[D][k]));
  const __m256i scale = _mm256_slli_epi32(_mm256_castps_si256(shifted), 23);
  return _mm256_castsi256_ps(_mm256_add_epi32(_mm256_castps_si256(p), scale));
}
#else
typedef float vf;
constexpr int VW = 1;
typedef int32_t vi;
inline vi v_offsets(int64_t, int) { return 0; }
inline vf v_gather(const float* p, vi offsets) { return p[offsets]; }
inline vf v_load(const float* p) { return *p; }
inline void v_store(float* p, vf v) { *p = v; }
inline void v_stream(float* p, vf v) { *p = v; }
inline vf v_set1(float x) { return x; }
inline vf v_add(vf a, vf b) { return a + b; }
inline vf v_sub(vf a, vf b) { return a - b; }
inline vf v_mul(vf a, vf b) { return a * b; }
inline vf v_div(vf a, vf b) { return a / b; }
inline vf v_fma(vf a, vf b, vf c) { return a * b + c; }
inline vf v_max(vf a, vf b) { return a > b ? a : b; }
inline vf v_min(vf a, vf b) { return a < b ? a : b; }
inline float v_hsum(vf v) { return v; }
inline float v_hmax(vf v) { return v; }
inline bool v_any_greater(vf a, vf b) { return a > b; }
inline vf v_first_lanes(vf v, int count, float fill) { return count > 0 ? v : fill; }
inline void v_sfence() {}
inline void v_transpose(vf (&)[VW]) {}
template <int D>
inline vf v_exp(vf x) { return s_exp<D>(x); }
template <int D>
inline vf v_exp2_product(vf a, vf b) { return s_exp2_product<D>(a, b); }
#endif

// dst[i * dst_stride + j] = src[j * src_stride + i] for a VW x VW tile, through registers.
inline void v_transpose_tile(const float* src, int64_t src_stride, float* dst, int64_t dst_stride) {
  vf r[VW];
#pragma GCC unroll 16
  for (int i = 0; i < VW; ++i) r[i] = v_load(src + i * src_stride);
  v_transpose(r);
#pragma GCC unroll 16
  for (int i = 0; i < VW; ++i) v_store(dst + i * dst_stride, r[i]);
}

// Vector registers the compiler can allocate at this width (32 with AVX-512; ymm16-31 need AVX-512VL, as on
// every AVX-512 server part; 16 otherwise), for register tiles sized to fit them.
#if defined(__AVX512VL__) || (VECTOR_BITS >= 512 && defined(__AVX512F__))
constexpr int kVectorRegisters = 32;
#else
constexpr int kVectorRegisters = 16;
#endif
