// A warp per gathered row with 2-D blocks (threadIdx.y picks the row): float4 loads where the row
// length allows, a scalar loop otherwise.
#include <cuda_runtime.h>
#include <stdint.h>

constexpr int kWarpsPerBlock = 4;

__global__ void gather_rows(const float* __restrict__ x, const int* __restrict__ idx, float* __restrict__ y, int m, int d) {
  const int i = blockIdx.x * blockDim.y + threadIdx.y;
  if (i >= m) return;
  const float* src = x + (size_t)idx[i] * d;
  float* dst = y + (size_t)i * d;
  if ((d & 3) == 0) {
    const float4* src4 = reinterpret_cast<const float4*>(src);
    float4* dst4 = reinterpret_cast<float4*>(dst);
    for (int j = threadIdx.x; j < d / 4; j += warpSize) dst4[j] = src4[j];
  } else {
    for (int j = threadIdx.x; j < d; j += warpSize) dst[j] = src[j];
  }
}

extern "C" void gather(const float* x, const int* idx, float* y, int64_t n, int64_t m, int64_t d, cudaStream_t stream) {
  dim3 block(32, kWarpsPerBlock);
  gather_rows<<<(m + kWarpsPerBlock - 1) / kWarpsPerBlock, block, 0, stream>>>(x, idx, y, (int)m, (int)d);
}
