// Device reference (ksearch runs it for the workloads at or above [reference.cuda].above_flops, after
// checking it against reference.cpp): one output per thread, 32 x 32 tiles of A and B staged in shared
// memory as double, the dot product accumulated in double and rounded to fp32 once.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kTile = 32;

__global__ void matmul_reference_kernel(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k) {
  __shared__ double a_tile[kTile][kTile];
  __shared__ double b_tile[kTile][kTile];
  const int tx = threadIdx.x, ty = threadIdx.y;
  const int64_t i = blockIdx.y * int64_t(kTile) + ty, j = blockIdx.x * int64_t(kTile) + tx;
  double acc = 0;
  for (int64_t p0 = 0; p0 < k; p0 += kTile) {
    a_tile[ty][tx] = i < m && p0 + tx < k ? double(A[i * k + p0 + tx]) : 0.0;
    b_tile[ty][tx] = p0 + ty < k && j < n ? double(B[(p0 + ty) * n + j]) : 0.0;
    __syncthreads();
    for (int p = 0; p < kTile; ++p) acc += a_tile[ty][p] * b_tile[p][tx];
    __syncthreads();
  }
  if (i < m && j < n) C[i * n + j] = float(acc);
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  const dim3 block(kTile, kTile), grid(unsigned((n + kTile - 1) / kTile), unsigned((m + kTile - 1) / kTile));
  if (m > 0 && n > 0) matmul_reference_kernel<<<grid, block, 0, stream>>>(A, B, C, m, n, k);
}
