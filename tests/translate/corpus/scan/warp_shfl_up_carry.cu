// A warp per row: inclusive scans of 32-element chunks with __shfl_up_sync, the chunk's total carried
// to the next by __shfl_sync from lane 31.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_inclusive_scan(float v, int lane) {
#pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const float up = __shfl_up_sync(0xffffffffu, v, d);
    if (lane >= d) v += up;
  }
  return v;
}

__global__ void scan_warp_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * (blockDim.x >> 5) + (threadIdx.x >> 5);
  const int lane = threadIdx.x & 31;
  if (row >= rows) return;
  float carry = 0.f;
  for (int base = 0; base < cols; base += 32) {
    const int c = base + lane;
    float v = c < cols ? x[(size_t)row * cols + c] : 0.f;
    v = warp_inclusive_scan(v, lane) + carry;
    if (c < cols) y[(size_t)row * cols + c] = v;
    carry = __shfl_sync(0xffffffffu, v, 31);
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const dim3 block(128);
  const dim3 grid((unsigned)((rows + 3) / 4));
  scan_warp_rows<<<grid, block, 0, stream>>>(x, y, (int)rows, (int)cols);
}
