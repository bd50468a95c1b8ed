// task: attention_bf16
// A warp per query row reading q, k and v as __nv_bfloat162 pairs (each lane owns up to four pairs: head dims up
// to 256, even), converted with __bfloat1622float2 and written back with __floats2bfloat162_rn; the scores by a
// __shfl_xor_sync butterfly, an online softmax in fp32 with exp2f on log2e-scaled scores.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <cstdint>

constexpr int kWarp = 32;
constexpr int kPairsPerLane = 4;
constexpr int kWarpsPerBlock = 4;
constexpr float kLog2e = 1.4426950408889634f;

__global__ void __launch_bounds__(kWarp * kWarpsPerBlock)
attention_pairs(const __nv_bfloat16* __restrict__ q, const __nv_bfloat16* __restrict__ k, const __nv_bfloat16* __restrict__ v,
                __nv_bfloat16* __restrict__ o, int64_t b, int64_t hq, int64_t hkv, int64_t lq, int64_t lk, int64_t d, int causal) {
  const int64_t row = int64_t(blockIdx.x) * kWarpsPerBlock + threadIdx.y;  // over b * hq * lq
  if (row >= b * hq * lq) return;
  const int lane = threadIdx.x;
  const int64_t i = row % lq, h = (row / lq) % hq, bi = row / (lq * hq), kh = h / (hq / hkv);
  const int64_t pairs = d / 2;
  const auto* Q = reinterpret_cast<const __nv_bfloat162*>(q + row * d);
  const auto* K = reinterpret_cast<const __nv_bfloat162*>(k + (bi * hkv + kh) * lk * d);
  const auto* V = reinterpret_cast<const __nv_bfloat162*>(v + (bi * hkv + kh) * lk * d);
  const float scale = rsqrtf(float(d)) * kLog2e;
  float2 qr[kPairsPerLane], acc[kPairsPerLane];
#pragma unroll
  for (int c = 0; c < kPairsPerLane; ++c) {
    const int64_t p = lane + kWarp * c;
    qr[c] = p < pairs ? __bfloat1622float2(Q[p]) : make_float2(0.f, 0.f);
    acc[c] = make_float2(0.f, 0.f);
  }
  const int64_t last = causal ? i + lk - lq : lk - 1;
  float m = -INFINITY, sum = 0.f;
  for (int64_t j = 0; j <= last; ++j) {
    float s = 0.f;
#pragma unroll
    for (int c = 0; c < kPairsPerLane; ++c) {
      const int64_t p = lane + kWarp * c;
      if (p < pairs) {
        const float2 kv = __bfloat1622float2(K[j * pairs + p]);
        s = fmaf(qr[c].x, kv.x, fmaf(qr[c].y, kv.y, s));
      }
    }
#pragma unroll
    for (int offset = kWarp / 2; offset > 0; offset >>= 1) s += __shfl_xor_sync(0xffffffffu, s, offset);
    s *= scale;
    const float m_new = fmaxf(m, s), correction = exp2f(m - m_new), weight = exp2f(s - m_new);
    sum = sum * correction + weight;
#pragma unroll
    for (int c = 0; c < kPairsPerLane; ++c) {
      const int64_t p = lane + kWarp * c;
      if (p < pairs) {
        const float2 vv = __bfloat1622float2(V[j * pairs + p]);
        acc[c].x = acc[c].x * correction + weight * vv.x;
        acc[c].y = acc[c].y * correction + weight * vv.y;
      }
    }
    m = m_new;
  }
  auto* O = reinterpret_cast<__nv_bfloat162*>(o + row * d);
  const float inv = sum > 0.f ? 1.f / sum : 0.f;
#pragma unroll
  for (int c = 0; c < kPairsPerLane; ++c) {
    const int64_t p = lane + kWarp * c;
    if (p < pairs) O[p] = __floats2bfloat162_rn(acc[c].x * inv, acc[c].y * inv);
  }
}

extern "C" void attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int64_t b,
                          int64_t hq, int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  const int64_t rows = b * hq * lq;
  if (rows <= 0 || d % 2 != 0 || d > 2 * kWarp * kPairsPerLane) return;
  const dim3 block(kWarp, kWarpsPerBlock);
  attention_pairs<<<unsigned((rows + kWarpsPerBlock - 1) / kWarpsPerBlock), block, 0, stream>>>(q, k, v, o, b, hq, hkv, lq, lk, d,
                                                                                                 causal);
}
