// task: matmul
// 32x32 tiles double-buffered in static shared memory: the next tile is loaded into one buffer while the current one
// is read, and the two buffers' pointers change places with std::swap in device code (constexpr since C++20).
#include <cuda_runtime.h>
#include <cstdint>
#include <utility>

constexpr int kTile = 32;

__global__ void __launch_bounds__(kTile * kTile)
sgemm_double_buffered(const float* __restrict__ A, const float* __restrict__ B, float* __restrict__ C, int m, int n, int k) {
  __shared__ float a_tiles[2][kTile][kTile + 1], b_tiles[2][kTile][kTile + 1];
  float(*a_now)[kTile + 1] = a_tiles[0], (*a_next)[kTile + 1] = a_tiles[1];
  float(*b_now)[kTile + 1] = b_tiles[0], (*b_next)[kTile + 1] = b_tiles[1];
  const int tx = threadIdx.x % kTile, ty = threadIdx.x / kTile;
  const int row = blockIdx.y * kTile + ty, col = blockIdx.x * kTile + tx;
  auto load = [&](float(*a)[kTile + 1], float(*b)[kTile + 1], int k0) {
    a[ty][tx] = row < m && k0 + tx < k ? A[int64_t(row) * k + k0 + tx] : 0.f;
    b[ty][tx] = k0 + ty < k && col < n ? B[int64_t(k0 + ty) * n + col] : 0.f;
  };
  load(a_now, b_now, 0);
  __syncthreads();
  float acc = 0.f;
  for (int k0 = 0; k0 < k; k0 += kTile) {
    if (k0 + kTile < k) load(a_next, b_next, k0 + kTile);
#pragma unroll
    for (int kk = 0; kk < kTile; ++kk) acc = fmaf(a_now[ty][kk], b_now[kk][tx], acc);
    __syncthreads();
    std::swap(a_now, a_next);
    std::swap(b_now, b_next);
  }
  if (row < m && col < n) C[int64_t(row) * n + col] = acc;
}

extern "C" void matmul(const float* A, const float* B, float* C, int64_t m, int64_t n, int64_t k, cudaStream_t stream) {
  if (m <= 0 || n <= 0) return;
  const dim3 grid(unsigned((n + kTile - 1) / kTile), unsigned((m + kTile - 1) / kTile));
  sgemm_double_buffered<<<grid, kTile * kTile, 0, stream>>>(A, B, C, int(m), int(n), int(k));
}
