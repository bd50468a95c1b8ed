// A constexpr device table of shuffle offsets and a constexpr host/device helper, walked by an unrolled
// loop; the block's warps combine through shared memory.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ constexpr int kXorOffsets[] = {16, 8, 4, 2, 1};
constexpr int kNumOffsets = sizeof(kXorOffsets) / sizeof(kXorOffsets[0]);

__host__ __device__ constexpr int warps_of(int threads) { return (threads + 31) / 32; }

template <int kThreads>
__global__ void rowsum_table(const float* __restrict__ x, float* __restrict__ y, int cols) {
  __shared__ float warp_part[warps_of(kThreads)];
  const float* row = x + (size_t)blockIdx.x * cols;
  float v = 0.f;
  for (int c = threadIdx.x; c < cols; c += kThreads) v += row[c];
#pragma unroll
  for (int k = 0; k < kNumOffsets; ++k) v += __shfl_xor_sync(0xffffffffu, v, kXorOffsets[k]);
  if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x >> 5] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.f;
#pragma unroll
    for (int w = 0; w < warps_of(kThreads); ++w) total += warp_part[w];
    y[blockIdx.x] = total;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_table<192><<<(unsigned)rows, 192, 0, stream>>>(x, y, (int)cols);
}
