// matmul, built-in cpu template family row_simd: Loop interchange (i, p, j) with vectorized row updates, OpenMP over rows.
// Knobs: ksearch replaces each #define below with the value it tries (row_simd.toml lists them).
#define THREADS 1
#define N_BLOCK 512

#include <algorithm>
#include <cstdint>

#include "../common/vector.h"

// i-p-j order: each row of C is a sum of rows of B scaled by A[i][p], a unit-stride vector update.
// Columns are blocked so the C segment stays in L1 while B rows stream past it.
extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
#pragma omp parallel for if (THREADS) schedule(static)
  for (int64_t i = 0; i < m; ++i) {
    const float* __restrict a = A + i * k;
    float* __restrict c = C + i * n;
    for (int64_t j0 = 0; j0 < n; j0 += N_BLOCK) {
      const int64_t j1 = std::min<int64_t>(n, j0 + N_BLOCK);
#pragma omp simd
      for (int64_t j = j0; j < j1; ++j) c[j] = 0.0f;
      for (int64_t p = 0; p < k; ++p) {
        const float ap = a[p];
        const float* __restrict b = B + p * n;
#pragma omp simd
        for (int64_t j = j0; j < j1; ++j) c[j] += ap * b[j];
      }
    }
  }
}
