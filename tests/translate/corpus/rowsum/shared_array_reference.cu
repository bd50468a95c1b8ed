// A block reduction helper taking the shared scratch as a reference to an array (`float (&)[32]`),
// and a second helper whose float reference binds both a register and a shared slot; the warp's
// total broadcast with __shfl_sync from lane 0; #pragma unroll over the offsets.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ void accumulate(float& into, const float v) { into += v; }

__device__ float block_reduce_sum(float (&smem)[32], float v) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int offset = 16; offset > 0; offset >>= 1) accumulate(v, __shfl_down_sync(0xffffffffu, v, offset));
  v = __shfl_sync(0xffffffffu, v, 0);
  if (lane == 0) smem[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0)
    for (int w = 1; w < (int)(blockDim.x >> 5); ++w) accumulate(smem[0], smem[w]);
  __syncthreads();
  return smem[0];
}

__global__ void rowsum_ref(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float smem[32];
  float s = 0.f;
  for (int c = threadIdx.x; c < cols; c += blockDim.x) accumulate(s, x[(size_t)blockIdx.x * cols + c]);
  s = block_reduce_sum(smem, s);
  if (threadIdx.x == 0) y[blockIdx.x] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_ref<<<rows, 128, 0, stream>>>(x, y, (int)cols);
}
