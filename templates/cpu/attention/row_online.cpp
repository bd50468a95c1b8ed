// attention, built-in cpu template family row_online: Per query row online softmax with vectorized dot products, OpenMP over (batch*head, row).
// Knobs: ksearch replaces each #define below with the value it tries (row_online.toml lists them).
#define VECTOR_BITS 512
#define EXP_DEGREE 6
#define THREADS 1

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "../common/vector.h"

// One query row at a time: vectorized q.k dot products, and a running max / sum with the output
// row o rescaled only when the max grows, so each K/V row is read once per query row.
extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq,
                          int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal) {
  const float scale = 1.0f / std::sqrt(float(d));
  const int64_t group = hq / hkv;
  const int64_t dv = d / VW * VW;  // vector part of a row; the rest is scalar
#pragma omp parallel if (THREADS)
  {
    std::vector<float> acc(static_cast<size_t>(d));
#pragma omp for collapse(2) schedule(dynamic, 4)
    for (int64_t bh = 0; bh < b * hq; ++bh)
      for (int64_t i = 0; i < lq; ++i) {
        const int64_t bi = bh / hq, h = bh % hq, kh = h / group;
        const float* K = k + (bi * hkv + kh) * lk * d;
        const float* V = v + (bi * hkv + kh) * lk * d;
        const float* Q = q + (bh * lq + i) * d;
        float* O = o + (bh * lq + i) * d;
        const int64_t end = causal ? std::min<int64_t>(lk, i + lk - lq + 1) : lk;
        float m = -3.0e38f, sum = 0.0f;
        std::fill(acc.begin(), acc.end(), 0.0f);
        for (int64_t j = 0; j < end; ++j) {
          const float* kr = K + j * d;
          vf sv = v_set1(0.0f);
          int64_t c = 0;
          for (; c < dv; c += VW) sv = v_fma(v_load(Q + c), v_load(kr + c), sv);
          float s = v_hsum(sv);
          for (; c < d; ++c) s += Q[c] * kr[c];
          s *= scale;
          if (s > m) {  // rescale what was accumulated under the old max
            const float alpha = s_exp<EXP_DEGREE>(m - s);
            sum *= alpha;
#pragma omp simd
            for (int64_t x = 0; x < d; ++x) acc[size_t(x)] *= alpha;
            m = s;
          }
          const float p = s_exp<EXP_DEGREE>(s - m);
          sum += p;
          const float* vr = V + j * d;
          const vf pv = v_set1(p);
          for (c = 0; c < dv; c += VW) v_store(acc.data() + c, v_fma(pv, v_load(vr + c), v_load(acc.data() + c)));
          for (; c < d; ++c) acc[size_t(c)] += p * vr[c];
        }
        const float inv = sum > 0.0f ? 1.0f / sum : 0.0f;
#pragma omp simd
        for (int64_t x = 0; x < d; ++x) O[x] = acc[size_t(x)] * inv;
      }
  }
}
