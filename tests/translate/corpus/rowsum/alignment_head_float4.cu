// rowsum: a block per row; scalar head elements until the row pointer is 16-byte aligned (its address tested
// through reinterpret_cast<uintptr_t>), float4 loads over the aligned body, a scalar tail; a warp butterfly and
// a shared reduction of warp partials.
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ float warp_allsum(float v) {
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  return v;
}

template <int kThreads>
__global__ void rowsum_aligned(const float* __restrict__ x, float* __restrict__ y, int64_t cols) {
  __shared__ float warp_part[kThreads / 32];
  const float* row = x + blockIdx.x * cols;
  const uintptr_t addr = reinterpret_cast<uintptr_t>(row);
  int64_t head = (int64_t)(((16 - (addr & 15)) & 15) / sizeof(float));
  if (head > cols) head = cols;
  const int64_t body = (cols - head) / 4;
  float s = 0.f;
  if (threadIdx.x < head) s += row[threadIdx.x];
  const float4* row4 = reinterpret_cast<const float4*>(row + head);
  for (int64_t i = threadIdx.x; i < body; i += kThreads) {
    const float4 v = row4[i];
    s += (v.x + v.y) + (v.z + v.w);
  }
  for (int64_t c = head + body * 4 + threadIdx.x; c < cols; c += kThreads) s += row[c];
  s = warp_allsum(s);
  if ((threadIdx.x & 31) == 0) warp_part[threadIdx.x / 32] = s;
  __syncthreads();
  if (threadIdx.x < 32) {
    float t = threadIdx.x < kThreads / 32 ? warp_part[threadIdx.x] : 0.f;
    t = warp_allsum(t);
    if (threadIdx.x == 0) y[blockIdx.x] = t;
  }
}

extern "C" void rowsum(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t stream) {
  rowsum_aligned<128><<<(unsigned)rows, 128, 0, stream>>>(x, y, cols);
}
