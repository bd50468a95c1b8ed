// A warp per row; the lanes past the row's end leave the loop early and the others reduce with
// __shfl_down_sync over __activemask(): CUDA's rule that a shuffle reads only active lanes, so each
// lane adds its neighbour only when the neighbour is in the mask.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_sum_active(float v) {
  const unsigned mask = __activemask();
  const int lane = threadIdx.x & 31;
  for (int offset = 16; offset > 0; offset >>= 1) {
    const float other = __shfl_down_sync(mask, v, offset);
    if (lane + offset < 32 && ((mask >> (lane + offset)) & 1u)) v += other;
  }
  return v;
}

__global__ void rowsum_warp_rows(const float* __restrict__ x, float* __restrict__ y, int rows, int cols) {
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  const int lane = threadIdx.x % 32;
  if (warp >= rows) return;
  float acc = 0.f;
  for (int c = lane; c < cols; c += 32) acc += x[(size_t)warp * cols + c];
  if (lane < cols) {  // short rows: only the lanes holding a column take part
    acc = warp_sum_active(acc);
    if (lane == 0) y[warp] = acc;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  const int threads = 128;
  const int blocks = (int)((rows * 32 + threads - 1) / threads);
  rowsum_warp_rows<<<blocks, threads, 0, stream>>>(x, y, (int)rows, (int)cols);
}
