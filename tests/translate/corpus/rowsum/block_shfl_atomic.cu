// Several blocks per row (blockIdx.y is the row): a warp-shuffle block reduction, then atomicAdd of
// the block's sum to the float output, zeroed by cudaMemset before the launch.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kBlock = 256;
constexpr int kChunk = 512;  // columns per block

__inline__ __device__ float warp_reduce_sum(float v) {
  for (int offset = warpSize / 2; offset > 0; offset /= 2) v += __shfl_down_sync(0xffffffff, v, offset);
  return v;
}

__inline__ __device__ float block_reduce_sum(float v) {
  static __shared__ float shared[32];
  const int lane = threadIdx.x % warpSize, wid = threadIdx.x / warpSize;
  v = warp_reduce_sum(v);
  if (lane == 0) shared[wid] = v;
  __syncthreads();
  v = (threadIdx.x < blockDim.x / warpSize) ? shared[lane] : 0.0f;
  if (wid == 0) v = warp_reduce_sum(v);
  return v;
}

__global__ void rowsum_atomic(const float* __restrict__ x, float* __restrict__ y, int cols) {
  const int row = blockIdx.y;
  const int begin = blockIdx.x * kChunk;
  const int end = min(begin + kChunk, cols);
  float s = 0.f;
  for (int c = begin + threadIdx.x; c < end; c += blockDim.x) s += x[(size_t)row * cols + c];
  s = block_reduce_sum(s);
  if (threadIdx.x == 0) atomicAdd(&y[row], s);
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  cudaMemsetAsync(y, 0, rows * sizeof(float), stream);
  dim3 grid((cols + kChunk - 1) / kChunk, rows);
  rowsum_atomic<<<grid, kBlock, 0, stream>>>(x, y, (int)cols);
}
