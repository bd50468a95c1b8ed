// Control: an honest matmul, B packed into 16-column panels (posix_memalign, freed before returning),
// a 4x16 AVX2 FMA micro-kernel in a target("avx2,fma") function chosen by __builtin_cpu_supports,
// collapse(2) over the tiles. It must pass.
// task: small_matmul
// expect: passed
// expect-without-rules: passed
#include <immintrin.h>
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <cstring>

namespace {
constexpr int64_t kNr = 16, kMr = 4;

__attribute__((target("avx2,fma"))) void micro_4x16(const float* A, int64_t lda, const float* panel, int64_t k, float* C,
                                                    int64_t ldc, int64_t rows, int64_t cols) {
  __m256 acc[kMr][2];
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_ps();
  for (int64_t p = 0; p < k; ++p) {
    const __m256 b0 = _mm256_load_ps(panel + p * kNr), b1 = _mm256_load_ps(panel + p * kNr + 8);
    for (int64_t r = 0; r < kMr; ++r) {
      const __m256 a = _mm256_set1_ps(r < rows ? A[r * lda + p] : 0.0f);
      acc[r][0] = _mm256_fmadd_ps(a, b0, acc[r][0]);
      acc[r][1] = _mm256_fmadd_ps(a, b1, acc[r][1]);
    }
  }
  alignas(32) float tile[kNr];
  for (int64_t r = 0; r < rows; ++r) {
    _mm256_store_ps(tile, acc[r][0]);
    _mm256_store_ps(tile + 8, acc[r][1]);
    std::memcpy(C + r * ldc, tile, size_t(cols) * sizeof(float));
  }
}

void micro_scalar(const float* A, int64_t lda, const float* panel, int64_t k, float* C, int64_t ldc, int64_t rows,
                  int64_t cols) {
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t j = 0; j < cols; ++j) {
      float s = 0;
      for (int64_t p = 0; p < k; ++p) s += A[r * lda + p] * panel[p * kNr + j];
      C[r * ldc + j] = s;
    }
}
}  // namespace

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  const int64_t panels = (n + kNr - 1) / kNr;
  void* raw = nullptr;
  if (posix_memalign(&raw, 64, size_t(panels * k * kNr) * sizeof(float)) != 0) return;
  float* packed = static_cast<float*>(raw);
#pragma omp parallel for schedule(static)
  for (int64_t jp = 0; jp < panels; ++jp) {
    float* panel = packed + jp * k * kNr;
    const int64_t j0 = jp * kNr, cols = std::min(kNr, n - j0);
    for (int64_t p = 0; p < k; ++p) {
      std::memset(panel + p * kNr, 0, kNr * sizeof(float));
      std::memcpy(panel + p * kNr, B + p * n + j0, size_t(cols) * sizeof(float));
    }
  }
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  const int64_t row_blocks = (m + kMr - 1) / kMr;
#pragma omp parallel for collapse(2) schedule(static)
  for (int64_t ib = 0; ib < row_blocks; ++ib)
    for (int64_t jp = 0; jp < panels; ++jp) {
      const int64_t i0 = ib * kMr, j0 = jp * kNr;
      const int64_t rows = std::min(kMr, m - i0), cols = std::min(kNr, n - j0);
      if (avx2) micro_4x16(A + i0 * k, k, packed + jp * k * kNr, k, C + i0 * n + j0, n, rows, cols);
      else micro_scalar(A + i0 * k, k, packed + jp * k * kNr, k, C + i0 * n + j0, n, rows, cols);
    }
  free(packed);
}
