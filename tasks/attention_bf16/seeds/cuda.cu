// Naive seed (bf16 in and out, fp32 math): one warp per query row; scores by warp reductions, online softmax, head dim up to 256.
#include <cuda_bf16.h>
#include <cuda_runtime.h>
#include <stdint.h>

__global__ void attention_kernel(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int64_t b, int64_t hq,
                                 int64_t hkv, int64_t lq, int64_t lk, int64_t d, int causal) {
  const int64_t row = blockIdx.x * int64_t(blockDim.y) + threadIdx.y;  // over b * hq * lq
  if (row >= b * hq * lq) return;
  const int lane = threadIdx.x;
  const int64_t i = row % lq, h = (row / lq) % hq, bi = row / (lq * hq);
  const int64_t kh = h / (hq / hkv);
  const __nv_bfloat16* Q = q + row * d;
  const __nv_bfloat16* K = k + (bi * hkv + kh) * lk * d;
  const __nv_bfloat16* V = v + (bi * hkv + kh) * lk * d;
  const float scale = rsqrtf(float(d));
  const int64_t last = causal ? i + lk - lq : lk - 1;
  float qr[8], acc[8];
#pragma unroll
  for (int c = 0; c < 8; ++c) {
    qr[c] = lane + 32 * c < d ? __bfloat162float(Q[lane + 32 * c]) : 0.0f;
    acc[c] = 0;
  }
  float m = -INFINITY, sum = 0;
  for (int64_t j = 0; j <= last; ++j) {
    float s = 0;
#pragma unroll
    for (int c = 0; c < 8; ++c)
      if (lane + 32 * c < d) s += qr[c] * __bfloat162float(K[j * d + lane + 32 * c]);
    for (int off = 16; off > 0; off >>= 1) s += __shfl_xor_sync(0xffffffffu, s, off);
    s *= scale;
    const float m_new = fmaxf(m, s), correction = expf(m - m_new), p = expf(s - m_new);
    sum = sum * correction + p;
#pragma unroll
    for (int c = 0; c < 8; ++c)
      if (lane + 32 * c < d) acc[c] = acc[c] * correction + p * __bfloat162float(V[j * d + lane + 32 * c]);
    m = m_new;
  }
#pragma unroll
  for (int c = 0; c < 8; ++c)
    if (lane + 32 * c < d) o[row * d + lane + 32 * c] = __float2bfloat16(acc[c] / sum);
}

extern "C" void attention(const __nv_bfloat16* q, const __nv_bfloat16* k, const __nv_bfloat16* v, __nv_bfloat16* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  const int64_t rows = b * hq * lq;
  const dim3 block(32, 4);
  if (rows > 0) attention_kernel<<<unsigned((rows + 3) / 4), block, 0, stream>>>(q, k, v, o, b, hq, hkv, lq, lk, d, causal);
}
