// softmax, built-in cpu template family simd_rows: Row-parallel three-pass softmax, compiler-vectorized with a polynomial exp.
// Knobs: ksearch replaces each #define below with the value it tries (simd_rows.toml lists them).
#define THREADS 1
#define EXP_DEGREE 5

#include <cstdint>

#include "../common/vector.h"

inline void softmax_row(const float* __restrict xr, float* __restrict yr, int64_t cols) {
  float m = -3.0e38f;
#pragma omp simd reduction(max : m)
  for (int64_t c = 0; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
  float sum = 0;
#pragma omp simd reduction(+ : sum)
  for (int64_t c = 0; c < cols; ++c) {
    const float e = s_exp<EXP_DEGREE>(xr[c] - m);
    yr[c] = e;
    sum += e;
  }
  const float inv = 1.0f / sum;
#pragma omp simd
  for (int64_t c = 0; c < cols; ++c) yr[c] *= inv;
}

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel for if (THREADS) schedule(static)
  for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
}
