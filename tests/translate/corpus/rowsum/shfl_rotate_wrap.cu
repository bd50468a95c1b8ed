// Row sums, a warp per row: a rotation all-reduce (recursive doubling over __shfl_sync(v, lane + i)),
// which relies on CUDA taking the source lane modulo the width (lane 31 + 1 reads lane 0), so every
// lane ends with the row's sum; lane `row % 32` writes it.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_allreduce_rotate(float v) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int i = 1; i < 32; i <<= 1) v += __shfl_sync(0xffffffffu, v, lane + i);
  return v;
}

__global__ void rowsum_rotate(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int row = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
  const int lane = threadIdx.x & 31;
  float s = 0.f;
  if (row < rows)
    for (int c = lane; c < cols; c += 32) s += x[(int64_t)row * cols + c];
  s = warp_allreduce_rotate(s);
  if (row < rows && lane == row % 32) y[row] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int warps = 4;
  rowsum_rotate<<<(unsigned)((rows + warps - 1) / warps), warps * 32, 0, stream>>>(x, y, (int)rows, (int)cols);
}
