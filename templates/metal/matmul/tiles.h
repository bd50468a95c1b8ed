// Staging of A and B tiles in threadgroup memory, shared by the metal matmul families. Elements outside the
// matrices are stored as zeros, so partial tiles need no special case in the inner loop.
#pragma once

// Rows [row0, row0 + ROWS) x columns [k0, k0 + BK) of A (m x k, row-major) into `tile`: element (r, kk) at
// tile[r * row_stride + kk * k_stride] (row_stride BK, k_stride 1: row-major; 1 and ROWS: transposed).
// Consecutive threads read consecutive k (coalesced). A and B are `device` or, under 8 elements, `constant`.
template <int ROWS, int BK, int THREADS, typename Matrix>
inline void stage_a(Matrix A, threadgroup float* tile, int m, int k, int row0, int k0, uint tid,
                    int row_stride, int k_stride) {
  for (int idx = int(tid); idx < ROWS * BK; idx += THREADS) {
    const int r = idx / BK, kk = idx % BK;
    const int gr = row0 + r, gk = k0 + kk;
    tile[r * row_stride + kk * k_stride] = gr < m && gk < k ? A[size_t(gr) * k + gk] : 0.0f;
  }
}

// Rows [k0, k0 + BK) x columns [col0, col0 + COLS) of B (k x n, row-major) into tile[kk * COLS + c].
template <int BK, int COLS, int THREADS, typename Matrix>
inline void stage_b(Matrix B, threadgroup float* tile, int k, int n, int k0, int col0, uint tid) {
  for (int idx = int(tid); idx < BK * COLS; idx += THREADS) {
    const int kk = idx / COLS, c = idx % COLS;
    const int gk = k0 + kk, gc = col0 + c;
    tile[idx] = gk < k && gc < n ? B[size_t(gk) * n + gc] : 0.0f;
  }
}
