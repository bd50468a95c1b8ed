// scan: logical warps of 8 lanes (4 rows per warp): each 8-lane segment scans its row in chunks of 8 with
// __shfl_up_sync(..., width 8), takes the chunk total from the segment's lane 7 by __shfl_sync(..., 7, 8) and
// carries it; every lane runs the same number of chunks (the warp's longest), so the shuffles stay converged.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kSeg = 8;

__global__ void scan_seg8(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = gtid / kSeg;
  const int lane = threadIdx.x % kSeg;
  const bool valid = row < rows;
  const float* xr = x + (size_t)row * cols;
  float* yr = y + (size_t)row * cols;
  float carry = 0.f;
  for (int base = 0; base < cols; base += kSeg) {
    const int c = base + lane;
    float v = (valid && c < cols) ? xr[c] : 0.f;
#pragma unroll
    for (int d = 1; d < kSeg; d <<= 1) {
      const float up = __shfl_up_sync(0xffffffffu, v, d, kSeg);
      if (lane >= d) v += up;
    }
    v += carry;
    if (valid && c < cols) yr[c] = v;
    carry = __shfl_sync(0xffffffffu, v, kSeg - 1, kSeg);
  }
}

extern "C" void scan(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;  // 16 rows per block
  const int blocks = (int)((rows * kSeg + threads - 1) / threads);
  scan_seg8<<<blocks, threads, 0, stream>>>(x, y, (int)rows, (int)cols);
}
