// Warp shuffles then shared memory across warps (a block of 8 warps per row).
#include <cuda_runtime.h>
#include <stdint.h>

__device__ float warp_sum(float v) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffff, v, o);
  return v;
}

__global__ void rowsum_two_level(const float* x, float* y, int cols) {
  __shared__ float warp_totals[8];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  float s = 0.0f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[(int64_t)blockIdx.x * cols + c];
  s = warp_sum(s);
  if (lane == 0) warp_totals[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < blockDim.x / 32 ? warp_totals[lane] : 0.0f;
    s = warp_sum(s);
    if (lane == 0) y[blockIdx.x] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_two_level<<<rows, 256, 0, stream>>>(x, y, cols);
}
