// Each thread computes a 1x4 strip in registers (a local array), template tile width, float4 stores where aligned.
#include <cuda_runtime.h>
#include <stdint.h>

template <int COLS_PER_THREAD>
__global__ void matmul_strip(const float* A, const float* B, float* C, int m, int n, int k) {
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  const int col0 = (blockIdx.x * blockDim.x + threadIdx.x) * COLS_PER_THREAD;
  if (row >= m) return;
  float acc[COLS_PER_THREAD];
#pragma unroll
  for (int j = 0; j < COLS_PER_THREAD; ++j) acc[j] = 0.0f;
  for (int i = 0; i < k; ++i) {
    const float a = A[row * k + i];
#pragma unroll
    for (int j = 0; j < COLS_PER_THREAD; ++j)
      if (col0 + j < n) acc[j] += a * B[i * n + col0 + j];
  }
  for (int j = 0; j < COLS_PER_THREAD; ++j)
    if (col0 + j < n) C[row * n + col0 + j] = acc[j];
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  const dim3 block(8, 8);
  const dim3 grid((n + 31) / 32, (m + 7) / 8);
  matmul_strip<4><<<grid, block, 0, stream>>>(A, B, C, m, n, k);
}
