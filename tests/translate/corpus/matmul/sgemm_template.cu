// Tiled SGEMM: a BLOCK_SIZE template parameter instantiated at the launch, two shared tiles,
// 2-D thread blocks, __restrict__ and the bounds of partial tiles.
#include <cuda_runtime.h>
#include <stdint.h>

template <int BLOCK_SIZE>
__global__ void sgemm_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int M, int N,
                            int K) {
  __shared__ float As[BLOCK_SIZE][BLOCK_SIZE];
  __shared__ float Bs[BLOCK_SIZE][BLOCK_SIZE];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int row = blockIdx.y * BLOCK_SIZE + ty, col = blockIdx.x * BLOCK_SIZE + tx;
  float acc = 0.0f;
  for (int t = 0; t < (K + BLOCK_SIZE - 1) / BLOCK_SIZE; ++t) {
    const int ka = t * BLOCK_SIZE + tx, kb = t * BLOCK_SIZE + ty;
    As[ty][tx] = (row < M && ka < K) ? A[row * K + ka] : 0.0f;
    Bs[ty][tx] = (kb < K && col < N) ? B[kb * N + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BLOCK_SIZE; ++k) acc = fmaf(As[ty][k], Bs[k][tx], acc);
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = acc;
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  constexpr int BS = 16;
  dim3 threads(BS, BS);
  dim3 grid((n + BS - 1) / BS, (m + BS - 1) / BS);
  sgemm_tiled<BS><<<grid, threads, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
