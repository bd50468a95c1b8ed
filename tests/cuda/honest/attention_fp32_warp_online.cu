// task: attention
// Online-softmax attention, a warp per query row and the head split over the lanes (up to 8 floats each); keys
// streamed in tiles of 32 through shared memory per block, shared by the block's 8 query rows of one head.
#include <cuda_runtime.h>
#include <cstdint>
#include <cmath>

namespace {

constexpr int kRowsPerBlock = 8;
constexpr int kKeyTile = 32;
constexpr int kMaxPerLane = 8;  // head size up to 256
constexpr int kMaxD = 32 * kMaxPerLane;

template <typename T>
__device__ __forceinline__ T warp_allreduce_sum(T v) {
#pragma unroll
  for (int mask = 16; mask > 0; mask >>= 1) v += __shfl_xor_sync(0xffffffffu, v, mask);
  return v;
}

__global__ void __launch_bounds__(kRowsPerBlock * 32)
attention_online(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v, float* __restrict__ o,
                 int64_t hq, int64_t hkv, int64_t lq, int64_t lk, int d, int causal, float scale) {
  extern __shared__ float tiles[];  // K tile then V tile, kKeyTile x d each
  float* Kt = tiles;
  float* Vt = tiles + kKeyTile * d;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  const int64_t bh = blockIdx.y, batch = bh / hq, kvh = (bh % hq) / (hq / hkv);
  const int64_t i = int64_t(blockIdx.x) * kRowsPerBlock + warp;
  const bool active = i < lq;
  float qr[kMaxPerLane], acc[kMaxPerLane];
#pragma unroll
  for (int e = 0; e < kMaxPerLane; ++e) {
    const int c = lane + 32 * e;
    qr[e] = active && c < d ? q[(bh * lq + i) * d + c] * scale : 0.f;
    acc[e] = 0.f;
  }
  const float* kb = k + (batch * hkv + kvh) * lk * d;
  const float* vb = v + (batch * hkv + kvh) * lk * d;
  float m = -INFINITY, l = 0.f;
  const int64_t block_last = int64_t(blockIdx.x + 1) * kRowsPerBlock - 1;
  const int64_t kend = causal ? max(int64_t(0), min(lk, block_last + lk - lq + 1)) : lk;
  for (int64_t j0 = 0; j0 < kend; j0 += kKeyTile) {
    __syncthreads();
    for (int idx = threadIdx.x; idx < kKeyTile * d; idx += blockDim.x) {
      const int64_t j = j0 + idx / d;
      Kt[idx] = j < lk ? kb[j * d + idx % d] : 0.f;
      Vt[idx] = j < lk ? vb[j * d + idx % d] : 0.f;
    }
    __syncthreads();
    if (!active) continue;
    for (int jj = 0; jj < kKeyTile; ++jj) {
      const int64_t j = j0 + jj;
      if (j >= lk || (causal && j > i + lk - lq)) break;
      float dot = 0.f;
#pragma unroll
      for (int e = 0; e < kMaxPerLane; ++e) {
        const int c = lane + 32 * e;
        if (c < d) dot += qr[e] * Kt[jj * d + c];
      }
      dot = warp_allreduce_sum(dot);
      const float m_new = fmaxf(m, dot);
      const float alpha = expf(m - m_new), p = expf(dot - m_new);
      l = l * alpha + p;
      m = m_new;
#pragma unroll
      for (int e = 0; e < kMaxPerLane; ++e) {
        const int c = lane + 32 * e;
        if (c < d) acc[e] = acc[e] * alpha + p * Vt[jj * d + c];
      }
    }
  }
  if (!active) return;
#pragma unroll
  for (int e = 0; e < kMaxPerLane; ++e) {
    const int c = lane + 32 * e;
    if (c < d) o[(bh * lq + i) * d + c] = l > 0.f ? acc[e] / l : 0.f;
  }
}

}  // namespace

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv, int64_t lq,
                          int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  if (b * hq * lq == 0 || d > kMaxD) return;
  const size_t smem = 2 * sizeof(float) * size_t(kKeyTile) * size_t(d);  // 64 KiB at d = 256
  static_assert(2 * sizeof(float) * kKeyTile * kMaxD <= 227 * 1024, "tiles fit in shared memory");
  cudaFuncSetAttribute(attention_online, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem));
  const dim3 grid(unsigned((lq + kRowsPerBlock - 1) / kRowsPerBlock), unsigned(b * hq));
  attention_online<<<grid, kRowsPerBlock * 32, smem, stream>>>(q, k, v, o, hq, hkv, lq, lk, int(d), causal, 1.f / std::sqrt(float(d)));
}
