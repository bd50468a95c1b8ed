// rowsum: 8-lane logical warps (4 rows per warp); the segment sum by __shfl_down_sync(..., width 8), checked
// against a rotation all-reduce through __shfl_sync(v, lane + i, 8) that wraps inside the segment; the two
// results averaged (equal up to rounding).
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void rowsum_seg8(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int gtid = blockIdx.x * blockDim.x + threadIdx.x;
  const int row = gtid >> 3;
  const int lane = threadIdx.x & 7;
  float s = 0.f;
  if (row < rows)
    for (int c = lane; c < cols; c += 8) s += x[(size_t)row * cols + c];
  float down = s;
  for (int o = 4; o > 0; o >>= 1) down += __shfl_down_sync(0xffffffffu, down, o, 8);
  // rotation: lane l adds lanes l+1, l+2, ... (mod 8) of its segment
  float rot = s;
  for (int i = 1; i < 8; ++i) rot += __shfl_sync(0xffffffffu, s, lane + i, 8);
  const float rot0 = __shfl_sync(0xffffffffu, rot, 0, 8);
  if (row < rows && lane == 0) y[row] = 0.5f * (down + rot0);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_seg8<<<(unsigned)((rows * 8 + 255) / 256), 256, 0, stream>>>(x, y, (int)rows, (int)cols);
}
