// An honest compute-bound fp32 kernel, written as a good candidate would: a register-blocked matmul
// (6 rows x 2 vectors of C held in registers, B packed in panels, OpenMP over the blocks) on matrices
// that fit the caches. Built with the candidates' flags, it prints the best rate it reaches; the
// ceilings test checks that the measured FMA peak is not below it.
#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

#if defined(__AVX512F__)
constexpr int kBytes = 64;
#elif defined(__AVX__)
constexpr int kBytes = 32;
#else
constexpr int kBytes = 16;
#endif
typedef float vec __attribute__((vector_size(kBytes)));
constexpr int kLanes = kBytes / 4, kRows = 6, kPanel = 2 * kLanes;
constexpr int M = kRows * 64, N = kPanel * 16, K = 256;

int main() {
  std::vector<float> a(size_t(M) * K), c(size_t(M) * N);
  std::vector<vec> b(size_t(N / kPanel) * K * 2);  // panel p, row k: two vectors of B[k][p*kPanel ...]
  for (size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) * 0.01f;
  for (size_t i = 0; i < b.size(); ++i) b[i] = vec{} + float(i % 5) * 0.01f;
  const int repeats = std::max(1, int(4e9 * omp_get_max_threads() / (2.0 * M * N * K)));  // 4 GFLOP per thread and pass
  double best = 0;
  for (int pass = 0; pass < 5; ++pass) {
    const auto start = std::chrono::steady_clock::now();
    for (int rep = 0; rep < repeats; ++rep) {
#pragma omp parallel for collapse(2) schedule(static)
      for (int i0 = 0; i0 < M; i0 += kRows)
        for (int p = 0; p < N / kPanel; ++p) {
          vec acc[kRows][2] = {};
          const vec* panel = &b[size_t(p) * K * 2];
          for (int k = 0; k < K; ++k) {
            const vec b0 = panel[2 * k], b1 = panel[2 * k + 1];
            for (int r = 0; r < kRows; ++r) {
              const float x = a[size_t(i0 + r) * K + k];
              acc[r][0] += x * b0;
              acc[r][1] += x * b1;
            }
          }
          for (int r = 0; r < kRows; ++r)
            for (int l = 0; l < kLanes; ++l) {
              c[size_t(i0 + r) * N + p * kPanel + l] = acc[r][0][l];
              c[size_t(i0 + r) * N + p * kPanel + kLanes + l] = acc[r][1][l];
            }
        }
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    best = std::max(best, 2.0 * M * N * K * repeats / seconds);
  }
  std::printf("{\"flops_per_s\": %.6g, \"threads\": %d, \"checksum\": %g}\n", best, omp_get_max_threads(), c[M * N / 2]);
}
