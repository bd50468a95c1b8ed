// task: matmul
// A 32x32 tile per block of 32x8 threads (4 outputs each), K tiles staged with the pipeline primitives
// (__pipeline_memcpy_async / __pipeline_commit / __pipeline_wait_prior), three stages deep.
#include <cuda_pipeline_primitives.h>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kTile = 32;
constexpr int kRowsPerThread = 4;
constexpr int kStages = 3;

__global__ void sgemm_staged(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m, int n, int k) {
  __shared__ float As[kStages][kTile][kTile];
  __shared__ float Bs[kStages][kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;  // 32 x 8
  const int row0 = blockIdx.y * kTile, col0 = blockIdx.x * kTile;
  const int tiles = (k + kTile - 1) / kTile;
  auto stage_tile = [&](int t) {
    const int s = t % kStages, k0 = t * kTile;
    for (int r = ty; r < kTile; r += blockDim.y) {
      const int ar = row0 + r, ak = k0 + tx;
      if (ar < m && ak < k) __pipeline_memcpy_async(&As[s][r][tx], A + int64_t(ar) * k + ak, sizeof(float));
      else As[s][r][tx] = 0.f;
      const int bk = k0 + r, bc = col0 + tx;
      if (bk < k && bc < n) __pipeline_memcpy_async(&Bs[s][r][tx], B + int64_t(bk) * n + bc, sizeof(float));
      else Bs[s][r][tx] = 0.f;
    }
    __pipeline_commit();
  };
  for (int t = 0; t < kStages - 1; ++t) {
    if (t < tiles) stage_tile(t);
    else __pipeline_commit();
  }
  float acc[kRowsPerThread] = {};
  for (int t = 0; t < tiles; ++t) {
    if (t + kStages - 1 < tiles) stage_tile(t + kStages - 1);
    else __pipeline_commit();
    __pipeline_wait_prior(kStages - 1);
    __syncthreads();
    const int s = t % kStages;
#pragma unroll 8
    for (int kk = 0; kk < kTile; ++kk) {
      const float b = Bs[s][kk][tx];
#pragma unroll
      for (int i = 0; i < kRowsPerThread; ++i) acc[i] += As[s][ty + i * 8][kk] * b;
    }
    __syncthreads();
  }
  for (int i = 0; i < kRowsPerThread; ++i) {
    const int r = row0 + ty + i * 8, c = col0 + tx;
    if (r < m && c < n) C[int64_t(r) * n + c] = acc[i];
  }
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 block(32, 8), grid(unsigned((n + kTile - 1) / kTile), unsigned((m + kTile - 1) / kTile));
  sgemm_staged<<<grid, block, 0, stream>>>(A, B, C, int(m), int(n), int(k));
}
