// Control: an honest OpenMP + SIMD matmul, register-blocked, that runs near the machine's FLOP/s
// peak from the caches. It must pass: the plausibility ceiling is measured at the host's native
// vector width, so a fast honest kernel is never called implausible.
// task: small_matmul
// expect: passed
// expect-without-rules: passed
#include <omp.h>
#include <cstdint>
#include <cstring>

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kRows = 4;
#pragma omp parallel for schedule(static)
  for (int64_t i0 = 0; i0 < m; i0 += kRows) {
    const int64_t rows = i0 + kRows <= m ? kRows : m - i0;
    for (int64_t r = 0; r < rows; ++r) std::memset(C + (i0 + r) * n, 0, size_t(n) * sizeof(float));
    for (int64_t p = 0; p < k; ++p) {
      const float* b = B + p * n;
      for (int64_t r = 0; r < rows; ++r) {
        const float a = A[(i0 + r) * k + p];
        float* c = C + (i0 + r) * n;
#pragma omp simd
        for (int64_t j = 0; j < n; ++j) c[j] += a * b[j];
      }
    }
  }
}
