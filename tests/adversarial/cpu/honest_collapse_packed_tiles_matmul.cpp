// Control: an honest tiled matmul: omp parallel for collapse(2), a packed B tile in an alignas(64) local
// buffer read through __builtin_assume_aligned, #pragma GCC unroll and omp simd aligned. It must pass.
// task: small_matmul
// expect: passed
// expect-without-rules: passed
#include <algorithm>
#include <cstdint>

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kTileI = 64, kTileJ = 64, kTileP = 128;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t i0 = 0; i0 < m; i0 += kTileI)
    for (int64_t j0 = 0; j0 < n; j0 += kTileJ) {
      alignas(64) float packed[kTileP * kTileJ];
      alignas(64) float acc[kTileI * kTileJ] = {};
      const int64_t ie = std::min(m, i0 + kTileI), je = std::min(n, j0 + kTileJ), nj = je - j0;
      for (int64_t p0 = 0; p0 < k; p0 += kTileP) {
        const int64_t pe = std::min(k, p0 + kTileP);
        for (int64_t p = p0; p < pe; ++p)
          for (int64_t j = 0; j < kTileJ; ++j) packed[(p - p0) * kTileJ + j] = j < nj ? B[p * n + j0 + j] : 0.0f;
        const float* bp = static_cast<const float*>(__builtin_assume_aligned(packed, 64));
        for (int64_t i = i0; i < ie; ++i) {
          float* ai = static_cast<float*>(__builtin_assume_aligned(acc + (i - i0) * kTileJ, 64));
#pragma GCC unroll 4
          for (int64_t p = p0; p < pe; ++p) {
            const float a = A[i * k + p];
#pragma omp simd aligned(ai, bp : 64)
            for (int64_t j = 0; j < kTileJ; ++j) ai[j] += a * bp[(p - p0) * kTileJ + j];
          }
        }
      }
      for (int64_t i = i0; i < ie; ++i)
        for (int64_t j = 0; j < nj; ++j) C[i * n + j0 + j] = acc[(i - i0) * kTileJ + j];
    }
}
