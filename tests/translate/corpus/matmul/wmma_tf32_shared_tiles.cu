// The warp matrix API (nvcuda::wmma) on tf32: one warp per 16x16 tile of C, A and B staged through shared memory
// in 16x8 and 8x16 steps with zero padding (any m, n, k), fragments converted element-wise with __float_to_tf32
// over num_elements and x[], the accumulator stored to shared memory and copied out where it lies inside C.
#include <cuda_runtime.h>
#include <mma.h>
#include <stdint.h>
using namespace nvcuda;

constexpr int WM = 16, WN = 16, WK = 8;

__global__ void wmma_matmul(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m, int n,
                            int k) {
  __shared__ float a_tile[WM * WK];
  __shared__ float b_tile[WK * WN];
  __shared__ float c_tile[WM * WN];
  const int row0 = blockIdx.y * WM, col0 = blockIdx.x * WN, lane = threadIdx.x;
  wmma::fragment<wmma::matrix_a, WM, WN, WK, wmma::precision::tf32, wmma::row_major> a_frag;
  wmma::fragment<wmma::matrix_b, WM, WN, WK, wmma::precision::tf32, wmma::row_major> b_frag;
  wmma::fragment<wmma::accumulator, WM, WN, WK, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k0 = 0; k0 < k; k0 += WK) {
    for (int i = lane; i < WM * WK; i += 32) {
      const int r = row0 + i / WK, c = k0 + i % WK;
      a_tile[i] = r < m && c < k ? A[(size_t)r * k + c] : 0.0f;
    }
    for (int i = lane; i < WK * WN; i += 32) {
      const int r = k0 + i / WN, c = col0 + i % WN;
      b_tile[i] = r < k && c < n ? B[(size_t)r * n + c] : 0.0f;
    }
    __syncwarp();
    wmma::load_matrix_sync(a_frag, a_tile, WK);
    wmma::load_matrix_sync(b_frag, b_tile, WN);
#pragma unroll
    for (int t = 0; t < a_frag.num_elements; t++) a_frag.x[t] = wmma::__float_to_tf32(a_frag.x[t]);
#pragma unroll
    for (int t = 0; t < b_frag.num_elements; t++) b_frag.x[t] = wmma::__float_to_tf32(b_frag.x[t]);
    wmma::mma_sync(acc, a_frag, b_frag, acc);
    __syncwarp();
  }
  wmma::store_matrix_sync(c_tile, acc, WN, wmma::mem_row_major);
  __syncwarp();
  for (int i = lane; i < WM * WN; i += 32) {
    const int r = row0 + i / WN, c = col0 + i % WN;
    if (r < m && c < n) C[(size_t)r * n + c] = c_tile[i];
  }
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 grid((unsigned)((n + WN - 1) / WN), (unsigned)((m + WM - 1) / WM));
  wmma_matmul<<<grid, 32, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
