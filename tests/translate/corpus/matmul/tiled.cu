// Shared-memory tiles (2-D __shared__ arrays), #pragma unroll over the tile, a #define tile size.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 16

__global__ void matmul_tiled(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m, int n,
                             int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float Bs[TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  float acc = 0.0f;
  for (int t = 0; t < k; t += TILE) {
    As[ty][tx] = row < m && t + tx < k ? A[row * k + t + tx] : 0.0f;
    Bs[ty][tx] = col < n && t + ty < k ? B[(t + ty) * n + col] : 0.0f;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TILE; ++i) acc = fmaf(As[ty][i], Bs[i][tx], acc);
    __syncthreads();
  }
  if (row < m && col < n) C[row * n + col] = acc;
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  matmul_tiled<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
}
