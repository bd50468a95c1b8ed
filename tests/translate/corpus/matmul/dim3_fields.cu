// A dim3 grid built field by field after its declaration (dim3 grid; grid.x = ...), block.x in the sizes.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void matmul_naive2d(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m, int n,
                               int k) {
  const int col = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = blockIdx.y * blockDim.y + threadIdx.y;
  if (row >= m || col >= n) return;
  float acc = 0.f;
  for (int i = 0; i < k; ++i) acc = fmaf(A[(int64_t)row * k + i], B[(int64_t)i * n + col], acc);
  C[(int64_t)row * n + col] = acc;
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  dim3 block(16, 8);
  dim3 grid;
  grid.x = (n + block.x - 1) / block.x;
  grid.y = (m + block.y - 1) / block.y;
  matmul_naive2d<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
}
