#pragma once
// The softmax entry of the row-function families: softmax_row over rows in one OpenMP parallel region, so
// that a thread's streaming stores are fenced before it ends. Uses THREADS and ROWS_PER_CHUNK.

extern "C" void softmax(const float* x, float* y, int64_t rows, int64_t cols) {
#pragma omp parallel if (THREADS)
  {
    if constexpr (ROWS_PER_CHUNK == 0) {
#pragma omp for schedule(static)
      for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
    } else {
#pragma omp for schedule(dynamic, ROWS_PER_CHUNK)
      for (int64_t r = 0; r < rows; ++r) softmax_row(x + r * cols, y + r * cols, cols);
    }
    v_sfence();
  }
}
