// 16 x 16 tiles with threadIdx.y rows; B's tile is read from shared memory as float4 quads
// (__shared__ float4), a register accumulator per output, bounds on the edges.
#include <cuda_runtime.h>
#include <stdint.h>

#define TILE 16

__global__ void matmul_tiles(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m, int n, int k) {
  __shared__ float As[TILE][TILE];
  __shared__ float4 Bs[TILE][TILE / 4];
  const int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < k; t += TILE) {
    As[threadIdx.y][threadIdx.x] = (row < m && t + threadIdx.x < k) ? A[(int64_t)row * k + t + threadIdx.x] : 0.f;
    const float b = (t + threadIdx.y < k && col < n) ? B[(int64_t)(t + threadIdx.y) * n + col] : 0.f;
    float* quad = reinterpret_cast<float*>(&Bs[threadIdx.y][threadIdx.x / 4]);
    quad[threadIdx.x % 4] = b;
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TILE; ++i) {
      const float4 q = Bs[i][threadIdx.x / 4];
      const int lane = threadIdx.x % 4;
      const float bv = lane == 0 ? q.x : lane == 1 ? q.y : lane == 2 ? q.z : q.w;
      acc += As[threadIdx.y][i] * bv;
    }
    __syncthreads();
  }
  if (row < m && col < n) C[(int64_t)row * n + col] = acc;
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  matmul_tiles<<<grid, block, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
