// task: attention_bf16
// A warp per query row with bf16x2 intrinsics: each lane holds a slice of q as __nv_bfloat162 pairs, unpacked with
// __bfloat1622float2 and multiplied in fp32 (__hmul2's bf16 products lose too much for the task's tolerance), scores
// reduced with __shfl_xor_sync, the online softmax and the output accumulated per lane in fp32 and stored with
// __floats2bfloat162_rn; any head size up to 256 (even), any causal/GQA shape.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>
#include <cfloat>

constexpr int kMaxPairsPerLane = 4;  // 32 lanes x 4 pairs = head size 256
constexpr int kWarpsPerBlock = 4;

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
attention_rows(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k, const __nv_bfloat16* __restrict__ v,
               __nv_bfloat16* __restrict__ o, int64_t b, int64_t hq, int64_t hkv, int64_t lq, int64_t lk, int d, int causal, float scale) {
  const int lane = threadIdx.x % 32;
  const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;  // over b * hq * lq
  const int64_t total = b * hq * lq;
  if (row >= total) return;
  const int64_t i = row % lq, bh = row / lq, batch = bh / hq, head = bh % hq, kvh = head / (hq / hkv);
  const __nv_bfloat162* q2 = reinterpret_cast<const __nv_bfloat162*>(q + row * d);
  const __nv_bfloat162* k2 = reinterpret_cast<const __nv_bfloat162*>(k + (batch * hkv + kvh) * lk * d);
  const __nv_bfloat162* v2 = reinterpret_cast<const __nv_bfloat162*>(v + (batch * hkv + kvh) * lk * d);
  const int pairs = d / 2;
  __nv_bfloat162 qr[kMaxPairsPerLane];
  float2 acc[kMaxPairsPerLane];
#pragma unroll
  for (int p = 0; p < kMaxPairsPerLane; ++p) {
    const int c = lane + 32 * p;
    qr[p] = c < pairs ? q2[c] : __floats2bfloat162_rn(0.f, 0.f);
    acc[p] = make_float2(0.f, 0.f);
  }
  const int64_t last = causal ? min(lk - 1, i + lk - lq) : lk - 1;
  float m = -FLT_MAX, l = 0.f;
  for (int64_t j = 0; j <= last; ++j) {
    float dot = 0.f;
#pragma unroll
    for (int p = 0; p < kMaxPairsPerLane; ++p) {
      const int c = lane + 32 * p;
      if (c < pairs) {
        const float2 qf = __bfloat1622float2(qr[p]), kf = __bfloat1622float2(k2[j * pairs + c]);
        dot = __fmaf_rn(qf.x, kf.x, __fmaf_rn(qf.y, kf.y, dot));
      }
    }
#pragma unroll
    for (int off = 16; off > 0; off >>= 1) dot += __shfl_xor_sync(0xffffffffu, dot, off);
    const float sc = dot * scale;
    const float m_new = fmaxf(m, sc);
    const float alpha = __expf(m - m_new), p_j = __expf(sc - m_new);
    l = l * alpha + p_j;
    m = m_new;
#pragma unroll
    for (int p = 0; p < kMaxPairsPerLane; ++p) {
      const int c = lane + 32 * p;
      if (c < pairs) {
        const float2 vv = __bfloat1622float2(v2[j * pairs + c]);
        acc[p].x = acc[p].x * alpha + p_j * vv.x;
        acc[p].y = acc[p].y * alpha + p_j * vv.y;
      }
    }
  }
  const float inv = l > 0.f ? 1.f / l : 0.f;
  __nv_bfloat162* o2 = reinterpret_cast<__nv_bfloat162*>(o + row * d);
#pragma unroll
  for (int p = 0; p < kMaxPairsPerLane; ++p) {
    const int c = lane + 32 * p;
    if (c < pairs) o2[c] = __floats2bfloat162_rn(acc[p].x * inv, acc[p].y * inv);
  }
}

extern "C" void attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int64_t b, int64_t hq,
                          int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  const int64_t rows = b * hq * lq;
  if (rows <= 0 || d % 2 != 0 || d > 64 * kMaxPairsPerLane) return;
  const unsigned blocks = unsigned((rows + kWarpsPerBlock - 1) / kWarpsPerBlock);
  attention_rows<<<blocks, kWarpsPerBlock * 32, 0, stream>>>(q, k, v, o, b, hq, hkv, lq, lk, int(d), causal, 1.f / sqrtf(float(d)));
}
