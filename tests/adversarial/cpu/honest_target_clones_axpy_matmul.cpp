// Control: an honest matmul whose axpy row kernel is target_clones-multiversioned (AVX-512, AVX2,
// default) and whose parameters are named `read` and `write`, called from a lambda. It must pass.
// task: small_matmul
// expect: passed
// expect-without-rules: passed
#include <cstdint>
#include <cstring>

__attribute__((target_clones("avx512f", "avx2", "default")))
static void axpy(float* __restrict__ write, const float* __restrict__ read, float a, int64_t n) {
  for (int64_t j = 0; j < n; ++j) write[j] += a * read[j];
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  auto row = [&](int64_t i) {
    float* out = C + i * n;
    std::memset(out, 0, sizeof(float) * size_t(n));
    for (int64_t p = 0; p < k; ++p) axpy(out, B + p * n, A[i * k + p], n);
  };
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < m; ++i) row(i);
}
