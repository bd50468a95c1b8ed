// cub::WarpReduce with a TempStorage per warp (`temp[warp_id]`, as CUB's documentation writes it): each warp
// sums a strided part of the row, lane 0 of each warp holds its warp's sum, and thread 0 adds the warps'.
#include <cub/warp/warp_reduce.cuh>
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kWarps = 4;

__global__ void rowsum_warps(const float* __restrict__ x, float* __restrict__ y, int cols) {
  typedef cub::WarpReduce<float> WarpReduce;
  __shared__ typename WarpReduce::TempStorage temp_storage[kWarps];
  __shared__ float warp_sums[kWarps];
  const int warp_id = threadIdx.x / 32, lane = threadIdx.x % 32;
  float v = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) v += x[(int64_t)blockIdx.x * cols + c];
  const float warp_sum = WarpReduce(temp_storage[warp_id]).Sum(v);
  if (lane == 0) warp_sums[warp_id] = warp_sum;
  __syncthreads();
  if (threadIdx.x == 0) {
    float s = 0.f;
    for (int w = 0; w < kWarps; ++w) s += warp_sums[w];
    y[blockIdx.x] = s;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_warps<<<rows, kWarps * 32, 0, stream>>>(x, y, (int)cols);
}
