// matmul: siboehm's 1-D block tiling (BM = BN = 64, BK = 8, TM = 8; 512 threads) with glibc's `uint`, the
// kernel's pointer parameters advanced in place (A += ..., B += ..., C += ...), CEIL_DIV, and bounds checks
// added for sizes that are not multiples of the tiles.
#include <cuda_runtime.h>
#include <stdint.h>
#include <sys/types.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

template <const int BM, const int BN, const int BK, const int TM>
__global__ void sgemm1DBlocktiling(int M, int N, int K, const float* A, const float* B, float* C) {
  const uint cRow = blockIdx.y;
  const uint cCol = blockIdx.x;
  const int threadCol = threadIdx.x % BN;
  const int threadRow = threadIdx.x / BN;
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const uint innerColA = threadIdx.x % BK;
  const uint innerRowA = threadIdx.x / BK;
  const uint innerColB = threadIdx.x % BN;
  const uint innerRowB = threadIdx.x / BN;
  const int rowsLeft = M - (int)(cRow * BM);
  const int colsLeft = N - (int)(cCol * BN);
  float threadResults[TM] = {0.0};
  for (uint bkIdx = 0; bkIdx < (uint)K; bkIdx += BK) {
    const int kLeft = K - (int)bkIdx;
    As[innerRowA * BK + innerColA] =
        ((int)innerRowA < rowsLeft && (int)innerColA < kLeft) ? A[innerRowA * K + innerColA] : 0.f;
    Bs[innerRowB * BN + innerColB] =
        ((int)innerRowB < kLeft && (int)innerColB < colsLeft) ? B[innerRowB * N + innerColB] : 0.f;
    __syncthreads();
    A += BK;
    B += BK * N;
    for (uint dotIdx = 0; dotIdx < BK; ++dotIdx) {
      const float tmpB = Bs[dotIdx * BN + threadCol];
      for (uint resIdx = 0; resIdx < TM; ++resIdx) threadResults[resIdx] += As[(threadRow * TM + resIdx) * BK + dotIdx] * tmpB;
    }
    __syncthreads();
  }
  for (uint resIdx = 0; resIdx < TM; ++resIdx) {
    const int r = threadRow * TM + resIdx;
    if (r < rowsLeft && threadCol < colsLeft) C[r * N + threadCol] = threadResults[resIdx];
  }
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  const uint BM = 64, BN = 64, BK = 8, TM = 8;
  dim3 gridDim(CEIL_DIV(n, BN), CEIL_DIV(m, BM));
  dim3 blockDim((BM * BN) / TM);
  sgemm1DBlocktiling<BM, BN, BK, TM><<<gridDim, blockDim, 0, stream>>>((int)m, (int)n, (int)k, A, B, C);
}
