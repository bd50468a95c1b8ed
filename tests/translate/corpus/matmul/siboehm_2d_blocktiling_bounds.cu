// siboehm's SGEMM kernel 5 (2D blocktiling): template <const int BM, const int BN, const int BK,
// const int TM, const int TN>, a (BM*BN)/(TM*TN)-thread block computing a BM x BN tile of C, each
// thread a TM x TN sub-tile in threadResults[TM * TN] from register caches regM[TM] / regN[TN],
// As / Bs filled by strided rows (strideA / strideB), A / B / C pointers advanced to the block's tile
// with `A += cRow * BM * K;`, CEIL_DIV launch; zero-filled loads and guarded stores for sizes that
// are not multiples of the tile (the original assumes them), alpha = 1 and beta = 0.
#include <cuda_runtime.h>
#include <stdint.h>

#define CEIL_DIV(M, N) (((M) + (N)-1) / (N))

template <const int BM, const int BN, const int BK, const int TM, const int TN>
__global__ void __launch_bounds__((BM * BN) / (TM * TN), 1)
    sgemm2DBlocktiling(int M, int N, int K, float alpha, const float* A, const float* B, float beta, float* C) {
  const unsigned cRow = blockIdx.y;
  const unsigned cCol = blockIdx.x;

  const unsigned totalResultsBlocktile = BM * BN;
  // A thread is responsible for calculating TM*TN elements in the blocktile
  const unsigned numThreadsBlocktile = totalResultsBlocktile / (TM * TN);

  // BN/TN are the number of threads to span a column
  const int threadCol = threadIdx.x % (BN / TN);
  const int threadRow = threadIdx.x / (BN / TN);

  // allocate space for the current blocktile in smem
  __shared__ float As[BM * BK];
  __shared__ float Bs[BK * BN];

  // Move blocktile to beginning of A's row and B's column
  A += cRow * BM * K;
  B += cCol * BN;
  C += cRow * BM * N + cCol * BN;
  const int rowsLeft = M - (int)cRow * BM;
  const int colsLeft = N - (int)cCol * BN;

  // calculating the indices that this thread will load into SMEM
  const unsigned innerRowA = threadIdx.x / BK;
  const unsigned innerColA = threadIdx.x % BK;
  // calculates the number of rows of As that are being loaded in a single step by a single block
  const unsigned strideA = numThreadsBlocktile / BK;
  const unsigned innerRowB = threadIdx.x / BN;
  const unsigned innerColB = threadIdx.x % BN;
  const unsigned strideB = numThreadsBlocktile / BN;

  // allocate thread-local cache for results in registerfile
  float threadResults[TM * TN] = {0.0};
  // register caches for As and Bs
  float regM[TM] = {0.0};
  float regN[TN] = {0.0};

  // outer-most loop over block tiles
  for (int bkIdx = 0; bkIdx < K; bkIdx += BK) {
    // populate the SMEM caches
    for (unsigned loadOffset = 0; loadOffset < BM; loadOffset += strideA) {
      const int r = innerRowA + loadOffset, c = innerColA;
      As[(innerRowA + loadOffset) * BK + innerColA] = (r < rowsLeft && bkIdx + c < K) ? A[r * K + c] : 0.0f;
    }
    for (unsigned loadOffset = 0; loadOffset < BK; loadOffset += strideB) {
      const int r = innerRowB + loadOffset, c = innerColB;
      Bs[(innerRowB + loadOffset) * BN + innerColB] = (bkIdx + r < K && c < colsLeft) ? B[r * N + c] : 0.0f;
    }
    __syncthreads();

    // advance blocktile
    A += BK;      // move BK columns to right
    B += BK * N;  // move BK rows down

    // calculate per-thread results
    for (unsigned dotIdx = 0; dotIdx < BK; ++dotIdx) {
      // block into registers
      for (unsigned i = 0; i < TM; ++i) regM[i] = As[(threadRow * TM + i) * BK + dotIdx];
      for (unsigned i = 0; i < TN; ++i) regN[i] = Bs[dotIdx * BN + threadCol * TN + i];
      for (unsigned resIdxM = 0; resIdxM < TM; ++resIdxM) {
        for (unsigned resIdxN = 0; resIdxN < TN; ++resIdxN) {
          threadResults[resIdxM * TN + resIdxN] += regM[resIdxM] * regN[resIdxN];
        }
      }
    }
    __syncthreads();
  }

  // write out the results
  for (unsigned resIdxM = 0; resIdxM < TM; ++resIdxM) {
    for (unsigned resIdxN = 0; resIdxN < TN; ++resIdxN) {
      const int r = threadRow * TM + resIdxM, c = threadCol * TN + resIdxN;
      if (r < rowsLeft && c < colsLeft) {
        C[r * N + c] = alpha * threadResults[resIdxM * TN + resIdxN] + (beta != 0.0f ? beta * C[r * N + c] : 0.0f);
      }
    }
  }
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  const int M = (int)m, N = (int)n, K = (int)k;
  const unsigned BK = 8, TM = 4, TN = 4;
  const unsigned BM = 64, BN = 64;
  dim3 gridDim(CEIL_DIV(N, BN), CEIL_DIV(M, BM));
  dim3 blockDim((BM * BN) / (TM * TN));
  sgemm2DBlocktiling<BM, BN, BK, TM, TN><<<gridDim, blockDim, 0, stream>>>(M, N, K, 1.0f, A, B, 0.0f, C);
}
