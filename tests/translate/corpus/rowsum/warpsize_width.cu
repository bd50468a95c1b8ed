// A shuffle width written as warpSize (32), __syncwarp, warpSize in loop bounds.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_reduce(float v) {
#pragma unroll
  for (int o = warpSize / 2; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o, warpSize);
  return v;
}

__global__ void __launch_bounds__(128) rowsum_ws(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float sums[32];
  const int lane = threadIdx.x % warpSize, warp = threadIdx.x / warpSize;
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) s += x[(size_t)blockIdx.x * cols + c];
  s = warp_reduce(s);
  if (lane == 0) sums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < (int)(blockDim.x / warpSize) ? sums[lane] : 0.f;
    __syncwarp();
    s = warp_reduce(s);
    if (lane == 0) y[blockIdx.x] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream = 0) {
  rowsum_ws<<<rows, 128, 0, stream>>>(x, y, cols);
  cudaGetLastError();
}
