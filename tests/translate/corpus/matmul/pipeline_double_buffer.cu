// Double-buffered 16 x 16 tiles staged by cp.async's pipeline primitives: tile t + 1's copies are committed while
// tile t is multiplied (__pipeline_wait_prior(1) leaves one group in flight); edges zero-filled (zfill = size).
#include <cuda_pipeline.h>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int TILE = 16;

__global__ void matmul_pipelined(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m,
                                 int n, int k) {
  __shared__ float As[2][TILE][TILE];
  __shared__ float Bs[2][TILE][TILE];
  const int ty = threadIdx.y, tx = threadIdx.x;
  const int row = blockIdx.y * TILE + ty, col = blockIdx.x * TILE + tx;
  const int tiles = (k + TILE - 1) / TILE;
  float acc = 0.f;
  for (int t = -1; t < tiles; ++t) {  // t = -1 only stages tile 0
    const int next = t + 1;
    if (next < tiles) {
      const int kk = next * TILE;
      const bool a_in = row < m && kk + tx < k, b_in = kk + ty < k && col < n;
      __pipeline_memcpy_async(&As[next & 1][ty][tx], A + (a_in ? (int64_t)row * k + kk + tx : 0), sizeof(float),
                              a_in ? 0 : sizeof(float));
      __pipeline_memcpy_async(&Bs[next & 1][ty][tx], B + (b_in ? (int64_t)(kk + ty) * n + col : 0), sizeof(float),
                              b_in ? 0 : sizeof(float));
    }
    __pipeline_commit();
    if (t < 0) continue;
    __pipeline_wait_prior(1);
    __syncthreads();
#pragma unroll
    for (int i = 0; i < TILE; ++i) acc += As[t & 1][ty][i] * Bs[t & 1][i][tx];
    __syncthreads();  // the next iteration refills this buffer
  }
  if (row < m && col < n) C[(int64_t)row * n + col] = acc;
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 block(TILE, TILE);
  dim3 grid((n + TILE - 1) / TILE, (m + TILE - 1) / TILE);
  matmul_pipelined<<<grid, block, 0, stream>>>(A, B, C, (int)m, (int)n, (int)k);
}
