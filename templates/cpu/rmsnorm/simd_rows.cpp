// rmsnorm, built-in cpu template family simd_rows: Row-parallel two-pass RMSNorm, compiler-vectorized.
// Knobs: ksearch replaces each #define below with the value it tries (simd_rows.toml lists them).
#define THREADS 1

#include <cmath>
#include <cstdint>

#include "../common/vector.h"

extern "C" void rmsnorm(const float* x, const float* weight, float* y, int64_t rows, int64_t cols, float eps) {
#pragma omp parallel for if (THREADS) schedule(static)
  for (int64_t r = 0; r < rows; ++r) {
    const float* __restrict xr = x + r * cols;
    float* __restrict yr = y + r * cols;
    float sum_sq = 0;
#pragma omp simd reduction(+ : sum_sq)
    for (int64_t c = 0; c < cols; ++c) sum_sq += xr[c] * xr[c];
    const float inv = 1.0f / std::sqrt(sum_sq / float(cols) + eps);
#pragma omp simd
    for (int64_t c = 0; c < cols; ++c) yr[c] = xr[c] * inv * weight[c];
  }
}
