// task: matmul
// A 64x64 tile per block of 256 threads under __launch_bounds__(256, 2), each thread a 4x4 block of outputs; the
// tile's geometry in a traits struct of static constexpr members checked by static_assert, interior tiles without
// bounds checks and edge tiles with them (if constexpr on a template flag), __restrict__ pointers, #pragma unroll.
#include <cuda_runtime.h>
#include <cstdint>

struct TileShape {
  static constexpr int kM = 64, kN = 64, kK = 16;
  static constexpr int kThreadM = 4, kThreadN = 4;
  static constexpr int kThreads = (kM / kThreadM) * (kN / kThreadN);
};
static_assert(TileShape::kThreads == 256, "the launch bounds below assume 256 threads");
static_assert(TileShape::kM * TileShape::kK % TileShape::kThreads == 0, "A's tile loads evenly");
static_assert(TileShape::kK * TileShape::kN % TileShape::kThreads == 0, "B's tile loads evenly");

template <bool kEdge>
__device__ __forceinline__ float load_or_zero(const float* __restrict__ p, int64_t row, int64_t col, int64_t rows, int64_t cols) {
  if constexpr (kEdge) return row < rows && col < cols ? p[row * cols + col] : 0.f;
  else return p[row * cols + col];
}

template <bool kEdge>
__device__ void tile_product(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int64_t m,
                             int64_t n, int64_t k, int64_t row0, int64_t col0) {
  using T = TileShape;
  __shared__ float As[T::kK][T::kM + 4];
  __shared__ float Bs[T::kK][T::kN];
  const int tx = threadIdx.x % (T::kN / T::kThreadN), ty = threadIdx.x / (T::kN / T::kThreadN);
  float acc[T::kThreadM][T::kThreadN] = {};
  for (int64_t k0 = 0; k0 < k; k0 += T::kK) {
    const bool edge_k = k0 + T::kK > k;
#pragma unroll
    for (int i = threadIdx.x; i < T::kM * T::kK; i += T::kThreads) {
      const int r = i / T::kK, c = i % T::kK;
      As[c][r] = kEdge || edge_k ? load_or_zero<true>(A, row0 + r, k0 + c, m, k) : load_or_zero<false>(A, row0 + r, k0 + c, m, k);
    }
#pragma unroll
    for (int i = threadIdx.x; i < T::kK * T::kN; i += T::kThreads) {
      const int r = i / T::kN, c = i % T::kN;
      Bs[r][c] = kEdge || edge_k ? load_or_zero<true>(B, k0 + r, col0 + c, k, n) : load_or_zero<false>(B, k0 + r, col0 + c, k, n);
    }
    __syncthreads();
#pragma unroll
    for (int p = 0; p < T::kK; ++p) {
      float a[T::kThreadM], b[T::kThreadN];
#pragma unroll
      for (int i = 0; i < T::kThreadM; ++i) a[i] = As[p][ty * T::kThreadM + i];
#pragma unroll
      for (int j = 0; j < T::kThreadN; ++j) b[j] = Bs[p][tx * T::kThreadN + j];
#pragma unroll
      for (int i = 0; i < T::kThreadM; ++i)
#pragma unroll
        for (int j = 0; j < T::kThreadN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < T::kThreadM; ++i)
#pragma unroll
    for (int j = 0; j < T::kThreadN; ++j) {
      const int64_t r = row0 + ty * T::kThreadM + i, c = col0 + tx * T::kThreadN + j;
      if (!kEdge || (r < m && c < n)) C[r * n + c] = acc[i][j];
    }
}

__global__ void __launch_bounds__(TileShape::kThreads, 2)
matmul_tiles(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int64_t m, int64_t n, int64_t k) {
  const int64_t row0 = int64_t(blockIdx.y) * TileShape::kM, col0 = int64_t(blockIdx.x) * TileShape::kN;
  if (row0 + TileShape::kM <= m && col0 + TileShape::kN <= n) tile_product<false>(A, B, C, m, n, k, row0, col0);
  else tile_product<true>(A, B, C, m, n, k, row0, col0);
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid(unsigned((n + TileShape::kN - 1) / TileShape::kN), unsigned((m + TileShape::kM - 1) / TileShape::kM));
  matmul_tiles<<<grid, TileShape::kThreads, 0, stream>>>(A, B, C, m, n, k);
}
