// Naive seed: for every query row, all scores, a softmax, then the weighted sum of values.
#include <cmath>
#include <cstdint>
#include <vector>

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq,
                          int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal) {
  const float scale = 1.0f / std::sqrt(float(d));
  std::vector<float> p(static_cast<size_t>(lk));
  for (int64_t bi = 0; bi < b; ++bi)
    for (int64_t h = 0; h < hq; ++h) {
      const int64_t kh = h / (hq / hkv);
      const float* K = k + (bi * hkv + kh) * lk * d;
      const float* V = v + (bi * hkv + kh) * lk * d;
      for (int64_t i = 0; i < lq; ++i) {
        const float* Q = q + ((bi * hq + h) * lq + i) * d;
        float* O = o + ((bi * hq + h) * lq + i) * d;
        const int64_t last = causal ? i + lk - lq : lk - 1;
        float m = -INFINITY;
        for (int64_t j = 0; j <= last; ++j) {
          float s = 0;
          for (int64_t c = 0; c < d; ++c) s += Q[c] * K[j * d + c];
          p[size_t(j)] = s * scale;
          m = std::fmax(m, p[size_t(j)]);
        }
        float sum = 0;
        for (int64_t j = 0; j <= last; ++j) sum += (p[size_t(j)] = std::exp(p[size_t(j)] - m));
        for (int64_t c = 0; c < d; ++c) {
          float acc = 0;
          for (int64_t j = 0; j <= last; ++j) acc += p[size_t(j)] * V[j * d + c];
          O[c] = acc / sum;
        }
      }
    }
}
