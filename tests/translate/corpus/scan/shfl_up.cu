// Warp inclusive scan with __shfl_up_sync, the carry passed along with __shfl_sync from lane 31.
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void scan_warp(const float* x, float* y, int cols) {
  const int lane = threadIdx.x;
  const int64_t base = (int64_t)blockIdx.x * cols;
  float carry = 0.0f;
  for (int start = 0; start < cols; start += 32) {
    const int c = start + lane;
    float v = c < cols ? x[base + c] : 0.0f;
    for (int d = 1; d < 32; d <<= 1) {
      const float up = __shfl_up_sync(0xffffffff, v, d);
      if (lane >= d) v += up;
    }
    v += carry;
    if (c < cols) y[base + c] = v;
    carry = __shfl_sync(0xffffffff, v, 31);
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  scan_warp<<<rows, 32, 0, stream>>>(x, y, cols);
}
