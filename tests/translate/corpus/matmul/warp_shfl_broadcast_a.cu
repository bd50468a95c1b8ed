// matmul: a warp computes 32 columns of one row of C; each lane loads one element of A's row per 32-wide k step
// and __shfl_sync broadcasts it from lane kk in the inner loop (a run-time source lane), B read coalesced;
// 4 rows per block through threadIdx.y, lanes past n still taking part in the shuffles.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void sgemm_warp_broadcast(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C,
                                     int M, int N, int K) {
  const int lane = threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col = blockIdx.x * 32 + lane;
  if (row >= M) return;  // the whole warp leaves together
  float acc = 0.f;
  for (int k0 = 0; k0 < K; k0 += 32) {
    const int ka = k0 + lane;
    const float a_reg = ka < K ? A[(size_t)row * K + ka] : 0.f;
    const int steps = K - k0 < 32 ? K - k0 : 32;
    for (int kk = 0; kk < steps; ++kk) {
      const float a = __shfl_sync(0xffffffffu, a_reg, kk);
      if (col < N) acc = fmaf(a, B[(size_t)(k0 + kk) * N + col], acc);
    }
  }
  if (col < N) C[(size_t)row * N + col] = acc;
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  const dim3 block(32, 4);
  const dim3 grid((unsigned)((n + 31) / 32), (unsigned)((m + 3) / 4));
  sgemm_warp_broadcast<<<grid, block, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
