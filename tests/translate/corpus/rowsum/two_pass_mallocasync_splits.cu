// rowsum: rows split over gridDim.y chunks, each block's partial in a cudaMallocAsync scratch on the stream,
// then a warp per row summing its splits; std::min<int64_t> for the split count, cudaFreeAsync.
#include <algorithm>
#include <cuda_runtime.h>
#include <stdint.h>

#define FULL_MASK 0xffffffffu

__device__ __forceinline__ float warp_sum(float v) {
#pragma unroll
  for (int m = 16; m >= 1; m /= 2) v += __shfl_xor_sync(FULL_MASK, v, m);
  return v;
}

template <int kBlock>
__global__ void __launch_bounds__(kBlock) partial_rowsum(const float* __restrict__ x, float* __restrict__ partials,
                                                         int64_t cols, int splits) {
  __shared__ float warp_sums[kBlock / 32];
  const int64_t row = blockIdx.x;
  const int split = blockIdx.y;
  const int64_t chunk = (cols + splits - 1) / splits;
  const int64_t begin = split * chunk;
  const int64_t end = begin + chunk < cols ? begin + chunk : cols;
  const float* __restrict__ xr = x + row * cols;
  float s = 0.f;
  for (int64_t c = begin + threadIdx.x; c < end; c += kBlock) s += xr[c];
  s = warp_sum(s);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    float t = threadIdx.x < kBlock / 32 ? warp_sums[threadIdx.x] : 0.f;
    t = warp_sum(t);
    if (threadIdx.x == 0) partials[row * splits + split] = t;
  }
}

__global__ void finish_rowsum(const float* __restrict__ partials, float* __restrict__ y, int64_t rows, int splits) {
  const int64_t row = (int64_t)blockIdx.x * blockDim.y + threadIdx.y;
  if (row >= rows) return;
  float s = 0.f;
  for (int i = threadIdx.x; i < splits; i += 32) s += partials[row * splits + i];
  s = warp_sum(s);
  if (threadIdx.x == 0) y[row] = s;
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  constexpr int kBlock = 128;
  const int splits = (int)std::min<int64_t>(8, (cols + 255) / 256);
  float* partials = nullptr;
  cudaMallocAsync(reinterpret_cast<void**>(&partials), sizeof(float) * rows * splits, stream);
  partial_rowsum<kBlock><<<dim3((unsigned)rows, splits), kBlock, 0, stream>>>(x, partials, cols, splits);
  const dim3 block(32, 4);
  finish_rowsum<<<(unsigned)((rows + 3) / 4), block, 0, stream>>>(partials, y, rows, splits);
  cudaFreeAsync(partials, stream);
}
