// task: matmul
// Tile sizes as template parameters: a 128x128 tile with BK = 32 double-buffered in dynamic shared memory
// (64 KiB, opted in with cudaFuncSetAttribute) for large problems (8x8 outputs a thread), a 32x32 tile otherwise (2x2).
#include <cuda_runtime.h>
#include <cstdint>

template <int BM, int BN, int BK, int TM, int TN>
struct Tile {
  static constexpr int kThreads = (BM / TM) * (BN / TN);
  static constexpr size_t kSmemBytes = 2 * sizeof(float) * (BM * BK + BK * BN);
  static_assert(BM % TM == 0 && BN % TN == 0, "whole thread tiles");
};

template <int BM, int BN, int BK, int TM, int TN>
__global__ void __launch_bounds__(Tile<BM, BN, BK, TM, TN>::kThreads)
sgemm_tile(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m, int n, int k) {
  using T = Tile<BM, BN, BK, TM, TN>;
  extern __shared__ float smem[];
  float* As = smem;                // [2][BK][BM], A transposed
  float* Bs = smem + 2 * BK * BM;  // [2][BK][BN]
  const int tx = threadIdx.x % (BN / TN), ty = threadIdx.x / (BN / TN);
  const int row0 = blockIdx.y * BM, col0 = blockIdx.x * BN;
  auto load = [&](int buf, int k0) {
    for (int i = threadIdx.x; i < BM * BK; i += T::kThreads) {
      const int r = i / BK, kk = i % BK;
      As[buf * BK * BM + kk * BM + r] = row0 + r < m && k0 + kk < k ? A[int64_t(row0 + r) * k + k0 + kk] : 0.f;
    }
    for (int i = threadIdx.x; i < BK * BN; i += T::kThreads) {
      const int kk = i / BN, c = i % BN;
      Bs[buf * BK * BN + kk * BN + c] = k0 + kk < k && col0 + c < n ? B[int64_t(k0 + kk) * n + col0 + c] : 0.f;
    }
  };
  float acc[TM][TN];
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = 0.f;
  load(0, 0);
  __syncthreads();
  int buf = 0;
  for (int k0 = 0; k0 < k; k0 += BK) {
    if (k0 + BK < k) load(buf ^ 1, k0 + BK);
    const float* a_s = As + buf * BK * BM;
    const float* b_s = Bs + buf * BK * BN;
#pragma unroll 4
    for (int kk = 0; kk < BK; ++kk) {
      float a[TM], b[TN];
#pragma unroll
      for (int i = 0; i < TM; ++i) a[i] = a_s[kk * BM + ty * TM + i];
#pragma unroll
      for (int j = 0; j < TN; ++j) b[j] = b_s[kk * BN + tx * TN + j];
#pragma unroll
      for (int i = 0; i < TM; ++i)
#pragma unroll
        for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
    }
    __syncthreads();
    buf ^= 1;
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int r = row0 + ty * TM + i, c = col0 + tx * TN + j;
      if (r < m && c < n) C[int64_t(r) * n + c] = acc[i][j];
    }
}

template <int BM, int BN, int BK, int TM, int TN>
cudaError_t run_tile(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  using T = Tile<BM, BN, BK, TM, TN>;
  auto kernel = sgemm_tile<BM, BN, BK, TM, TN>;
  if (T::kSmemBytes > 48 * 1024) {
    const cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(T::kSmemBytes));
    if (err != cudaSuccess) return err;
  }
  const dim3 grid(unsigned((n + BN - 1) / BN), unsigned((m + BM - 1) / BM));
  kernel<<<grid, T::kThreads, T::kSmemBytes, stream>>>(A, B, C, int(m), int(n), int(k));
  return cudaGetLastError();
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {
    cudaMemsetAsync(C, 0, size_t(m) * size_t(n) * sizeof(float), stream);
    return;
  }
  if (m >= 1024 && n >= 1024) run_tile<128, 128, 32, 8, 8>(A, B, C, m, n, k, stream);
  else run_tile<32, 32, 32, 2, 2>(A, B, C, m, n, k, stream);
}
