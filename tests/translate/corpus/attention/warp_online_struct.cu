// Attention, one warp per query row: online softmax in an anonymous-namespace struct with a method, GQA heads,
// the causal limit by min(), __ldg, and the scale computed by sqrtf in the launch's arguments (a host math call,
// which becomes the Metal one in the kernel's binding).
#include <cuda_runtime.h>
#include <stdint.h>
#include <math.h>

namespace {
constexpr int kWarp = 32;
constexpr int kMaxD = 256;
constexpr int kPerLane = kMaxD / kWarp;

struct OnlineSoftmax {
  float m = -INFINITY;
  float l = 0.f;
  __device__ float update(float s) {  // returns the rescale factor for the accumulator
    const float m_new = fmaxf(m, s);
    const float scale = __expf(m - m_new);
    l = l * scale + __expf(s - m_new);
    m = m_new;
    return scale;
  }
};

__device__ __forceinline__ float warp_allreduce_sum(float v) {
#pragma unroll
  for (int mask = kWarp / 2; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
  return v;
}
}  // namespace

__global__ void attn_warp_row(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                              float* __restrict__ o, int hq, int hkv, int lq, int lk, int d, int causal, float scale) {
  const int warps_per_block = blockDim.x / kWarp;
  const int row = blockIdx.x * warps_per_block + threadIdx.x / kWarp;  // over b * hq * lq
  const int lane = threadIdx.x % kWarp;
  const int b = blockIdx.y;
  if (row >= hq * lq) return;
  const int h = row / lq, i = row % lq;
  const int kvh = h / (hq / hkv);
  const float* qr = q + (((size_t)b * hq + h) * lq + i) * d;
  const float* kb = k + ((size_t)b * hkv + kvh) * (size_t)lk * d;
  const float* vb = v + ((size_t)b * hkv + kvh) * (size_t)lk * d;
  float qreg[kPerLane], acc[kPerLane];
#pragma unroll
  for (int t = 0; t < kPerLane; ++t) {
    const int c = lane + t * kWarp;
    qreg[t] = c < d ? __ldg(qr + c) * scale : 0.f;
    acc[t] = 0.f;
  }
  OnlineSoftmax sm;
  const int last = causal ? min(lk, i + lk - lq + 1) : lk;
  for (int j = 0; j < last; ++j) {
    float part = 0.f;
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      const int c = lane + t * kWarp;
      if (c < d) part += qreg[t] * __ldg(kb + (size_t)j * d + c);
    }
    const float s = warp_allreduce_sum(part);
    const float r = sm.update(s);
    const float p = __expf(s - sm.m);
#pragma unroll
    for (int t = 0; t < kPerLane; ++t) {
      const int c = lane + t * kWarp;
      if (c < d) acc[t] = acc[t] * r + p * vb[(size_t)j * d + c];
    }
  }
  float* orow = o + (((size_t)b * hq + h) * lq + i) * d;
  const float inv = 1.f / sm.l;
#pragma unroll
  for (int t = 0; t < kPerLane; ++t) {
    const int c = lane + t * kWarp;
    if (c < d) orow[c] = acc[t] * inv;
  }
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  const int threads = 128;
  const int rows_per_block = threads / kWarp;
  dim3 grid((unsigned)((hq * lq + rows_per_block - 1) / rows_per_block), (unsigned)b);
  attn_warp_row<<<grid, threads, 0, stream>>>(q, k, v, o, hq, hkv, lq, lk, d, causal, 1.0f / sqrtf((float)d));
}
