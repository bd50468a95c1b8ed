// Control: an honest matmul that partitions rows by hand (omp_get_thread_num, omp_get_num_threads) into
// ranges [open, close), with a std::function row kernel. It must pass.
// task: small_matmul
// expect: passed
// expect-without-rules: passed
#include <cstdint>
#include <functional>
#include <omp.h>

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  const std::function<void(int64_t)> row = [&](int64_t i) {
    float* out = C + i * n;
    for (int64_t j = 0; j < n; ++j) out[j] = 0;
    for (int64_t p = 0; p < k; ++p) {
      const float a = A[i * k + p];
      const float* brow = B + p * n;
      int64_t j = 0;
      for (; j + 8 <= n; j += 8)
#pragma GCC unroll 8
        for (int64_t t = 0; t < 8; ++t) out[j + t] += a * brow[j + t];
      for (; j < n; ++j) out[j] += a * brow[j];
    }
  };
#pragma omp parallel
  {
    const int64_t threads = omp_get_num_threads(), me = omp_get_thread_num();
    const int64_t open = m * me / threads, close = m * (me + 1) / threads;
    for (int64_t i = open; i < close; ++i) row(i);
  }
}
