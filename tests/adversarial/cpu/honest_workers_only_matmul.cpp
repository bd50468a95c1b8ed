// task: small_matmul
// expect: passed
// expect-without-rules: passed
// Control: an honest matmul whose rows all go to OpenMP's workers while the main thread waits at the region's end (as a
// kernel that keeps thread 0 for coordination does). Its other threads run far longer than its main thread, all within
// the call's time: the bound on all threads' CPU time (worker_moves_timer_start) must not take that for hidden work.
#include <omp.h>

#include <algorithm>
#include <cstdint>

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
#pragma omp parallel
  {
    const int threads = omp_get_num_threads(), id = omp_get_thread_num();
    const int first = threads > 1 ? 1 : 0;  // thread 0 takes no rows where there are workers
    for (int64_t i = id - first; id >= first && i < m; i += threads - first) {
      float* c = C + i * n;
      std::fill(c, c + n, 0.0f);
      for (int64_t p = 0; p < k; ++p) {
        const float a = A[i * k + p];
        const float* b = B + p * n;
        for (int64_t j = 0; j < n; ++j) c[j] += a * b[j];
      }
    }
  }
}
