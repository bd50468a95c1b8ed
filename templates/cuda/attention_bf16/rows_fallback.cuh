#pragma once
// The path of both attention_bf16 families for head sizes other than their tensor-core head size D
// (a constexpr of the including family): one warp per query row, the plain online-softmax loop.
#include "mma_bf16.cuh"

__global__ void attention_rows(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq, int64_t hkv,
                               int64_t lq, int64_t lk, int64_t d, int causal) {
  const int64_t row = blockIdx.x * int64_t(blockDim.y) + threadIdx.y;
  if (row >= b * hq * lq) return;
  const int lane = threadIdx.x;
  const int64_t i = row % lq, h = (row / lq) % hq, bi = row / (lq * hq), kh = h / (hq / hkv);
  const bf16* K = k + (bi * hkv + kh) * lk * d;
  const bf16* V = v + (bi * hkv + kh) * lk * d;
  const float scale = rsqrtf(float(d));
  const int64_t last = causal ? i + lk - lq : lk - 1;
  float qr[8], acc[8];
  for (int c = 0; c < 8; ++c) {
    qr[c] = lane + 32 * c < d ? __bfloat162float(q[row * d + lane + 32 * c]) : 0.0f;
    acc[c] = 0;
  }
  float m = -INFINITY, sum = 0;
  for (int64_t j = 0; j <= last; ++j) {
    float s = 0;
    for (int c = 0; c < 8; ++c)
      if (lane + 32 * c < d) s += qr[c] * __bfloat162float(K[j * d + lane + 32 * c]);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    s *= scale;
    const float mn = fmaxf(m, s), c = expf(m - mn), p = expf(s - mn);
    sum = sum * c + p;
    for (int cc = 0; cc < 8; ++cc)
      if (lane + 32 * cc < d) acc[cc] = acc[cc] * c + p * __bfloat162float(V[j * d + lane + 32 * cc]);
    m = mn;
  }
  for (int c = 0; c < 8; ++c)
    if (lane + 32 * c < d) o[row * d + lane + 32 * c] = __float2bfloat16(acc[c] / sum);
}

// The warp-per-row loop on every query row.
inline void launch_rows(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq, int64_t hkv, int64_t lq,
                        int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  attention_rows<<<unsigned((b * hq * lq + 3) / 4), dim3(32, 4), 0, stream>>>(q, k, v, o, b, hq, hkv, lq, lk, d, causal);
}

// Launches attention_rows when d is not D; returns whether it did.
inline bool launch_rows_fallback(const bf16* q, const bf16* k, const bf16* v, bf16* o, int64_t b, int64_t hq,
                                 int64_t hkv, int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  if (d == D) return false;
  launch_rows(q, k, v, o, b, hq, hkv, lq, lk, d, causal, stream);
  return true;
}
