// CUTLASS-free SGEMM: a 64x64 block tile, BK = 8, 16x16 threads each computing a 4x4 micro-tile by
// outer products of float4 fragments read from shared memory (A stored transposed), __ldg global
// loads with zero fill at the edges, a 2-D register accumulator passed by reference.
#include <cuda_runtime.h>
#include <stdint.h>

namespace gemm {
constexpr int BM = 64, BN = 64, BK = 8, TM = 4, TN = 4;
constexpr int kThreads = (BM / TM) * (BN / TN);

__device__ __forceinline__ void outer_fma(float (&acc)[TM][TN], const float4& a, const float4& b) {
  const float av[TM] = {a.x, a.y, a.z, a.w};
  const float bv[TN] = {b.x, b.y, b.z, b.w};
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
}

__global__ void __launch_bounds__(kThreads) sgemm_64x64(const float* __restrict__ A, const float* __restrict__ B,
                                                        float* __restrict__ C, int m, int n, int k) {
  __shared__ __align__(16) float As[BK][BM];
  __shared__ __align__(16) float Bs[BK][BN];
  const int tx = threadIdx.x, ty = threadIdx.y, t = ty * blockDim.x + tx;
  const int m0 = blockIdx.y * BM, n0 = blockIdx.x * BN;
  float acc[TM][TN] = {};
  for (int k0 = 0; k0 < k; k0 += BK) {
#pragma unroll
    for (int l = 0; l < (BM * BK) / kThreads; ++l) {
      const int idx = t + l * kThreads;
      const int am = idx / BK, ak = idx % BK;
      As[ak][am] = (m0 + am < m && k0 + ak < k) ? __ldg(&A[(size_t)(m0 + am) * k + k0 + ak]) : 0.f;
      const int bk = idx / BN, bn = idx % BN;
      Bs[bk][bn] = (k0 + bk < k && n0 + bn < n) ? __ldg(&B[(size_t)(k0 + bk) * n + n0 + bn]) : 0.f;
    }
    __syncthreads();
#pragma unroll
    for (int kk = 0; kk < BK; ++kk) {
      const float4 a = *reinterpret_cast<const float4*>(&As[kk][ty * TM]);
      const float4 b = *reinterpret_cast<const float4*>(&Bs[kk][tx * TN]);
      outer_fma(acc, a, b);
    }
    __syncthreads();
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) {
      const int r = m0 + ty * TM + i, c = n0 + tx * TN + j;
      if (r < m && c < n) C[(size_t)r * n + c] = acc[i][j];
    }
}
}  // namespace gemm

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  const dim3 block(gemm::BN / gemm::TN, gemm::BM / gemm::TM);
  const dim3 grid{(unsigned)((n + gemm::BN - 1) / gemm::BN), (unsigned)((m + gemm::BM - 1) / gemm::BM), 1u};
  gemm::sgemm_64x64<<<grid, block, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
