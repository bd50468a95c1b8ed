// gather: a warp per output row (blockDim 32 x 4); lane 0 reads the index and __shfl_sync broadcasts it; an enum
// class template parameter picks float4 or scalar copies (chosen by the host on d % 4), static inline helpers.
#include <cuda_runtime.h>
#include <stdint.h>

enum class CopyWidth : int { kScalar = 1, kVec4 = 4 };

static inline __device__ void copy_span(float* __restrict__ dst, const float* __restrict__ src, int len, int lane) {
  for (int j = lane; j < len; j += 32) dst[j] = __ldg(src + j);
}

static inline __device__ void copy_span4(float* __restrict__ dst, const float* __restrict__ src, int len, int lane) {
  const float4* s4 = reinterpret_cast<const float4*>(src);
  float4* d4 = reinterpret_cast<float4*>(dst);
  for (int j = lane; j < len / 4; j += 32) d4[j] = __ldg(s4 + j);
}

template <CopyWidth kWidth>
__global__ void gather_warp_rows(const float* __restrict__ table, const int* __restrict__ idx, float* __restrict__ out,
                                 int m, int d) {
  const int lane = threadIdx.x;
  const int i = blockIdx.x * blockDim.y + threadIdx.y;
  if (i >= m) return;
  int src = 0;
  if (lane == 0) src = __ldg(idx + i);
  src = __shfl_sync(0xffffffffu, src, 0);
  const float* from = table + (int64_t)src * d;
  float* to = out + (int64_t)i * d;
  if (kWidth == CopyWidth::kVec4)
    copy_span4(to, from, d, lane);
  else
    copy_span(to, from, d, lane);
}

extern "C" void gather(const float* x, const int* idx, float* y, int64_t n, int64_t m, int64_t d, cudaStream_t stream) {
  const dim3 block(32, 4);
  const unsigned blocks = (unsigned)((m + 3) / 4);
  if (d % 4 == 0)
    gather_warp_rows<CopyWidth::kVec4><<<blocks, block, 0, stream>>>(x, idx, y, (int)m, (int)d);
  else
    gather_warp_rows<CopyWidth::kScalar><<<blocks, block, 0, stream>>>(x, idx, y, (int)m, (int)d);
}
