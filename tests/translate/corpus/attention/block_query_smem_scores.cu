// attention: a block per (batch, query head, query); the scores of all keys in dynamic shared memory (lk floats,
// sized by the host), the scale folded into q held in shared memory, grouped-query heads (hq / hkv), a causal
// bound aligned to the end, max and sum by warp shuffles and a shared scratch, then threads over d for o.
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>

__device__ __forceinline__ float block_max(float v, float* red) {
  for (int o = 16; o > 0; o >>= 1) v = fmaxf(v, __shfl_xor_sync(0xffffffffu, v, o));
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = red[0];
  for (int i = 1; i < (int)(blockDim.x >> 5); ++i) r = fmaxf(r, red[i]);
  __syncthreads();
  return r;
}

__device__ __forceinline__ float block_sum(float v, float* red) {
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = 0.f;
  for (int i = 0; i < (int)(blockDim.x >> 5); ++i) r += red[i];
  __syncthreads();
  return r;
}

__global__ void attention_query_block(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                                      float* __restrict__ o, int hq, int hkv, int lq, int lk, int d, int causal,
                                      float scale) {
  extern __shared__ float scores[];  // lk
  __shared__ float qs[256];          // d <= 256
  __shared__ float red[32];
  const int qi = blockIdx.x, h = blockIdx.y, bi = blockIdx.z;
  const int kvh = h / (hq / hkv);
  const float* qrow = q + (((size_t)bi * hq + h) * lq + qi) * d;
  const float* kbase = k + ((size_t)bi * hkv + kvh) * lk * d;
  const float* vbase = v + ((size_t)bi * hkv + kvh) * lk * d;
  for (int i = threadIdx.x; i < d; i += blockDim.x) qs[i] = qrow[i] * scale;
  __syncthreads();
  const int last = causal ? qi + (lk - lq) : lk - 1;  // keys 0..last are visible
  float m = -INFINITY;
  for (int j = threadIdx.x; j < lk; j += blockDim.x) {
    float s = -INFINITY;
    if (j <= last) {
      const float* kr = kbase + (size_t)j * d;
      s = 0.f;
      for (int i = 0; i < d; ++i) s = fmaf(qs[i], kr[i], s);
    }
    scores[j] = s;
    m = fmaxf(m, s);
  }
  m = block_max(m, red);
  float sum = 0.f;
  for (int j = threadIdx.x; j < lk; j += blockDim.x) {
    const float p = j <= last ? expf(scores[j] - m) : 0.f;
    scores[j] = p;
    sum += p;
  }
  sum = block_sum(sum, red);  // its barriers also order the scores' writes before the reads below
  const float inv = 1.f / sum;
  float* orow = o + (((size_t)bi * hq + h) * lq + qi) * d;
  for (int i = threadIdx.x; i < d; i += blockDim.x) {
    float acc = 0.f;
    for (int j = 0; j < lk; ++j) acc = fmaf(scores[j], vbase[(size_t)j * d + i], acc);
    orow[i] = acc * inv;
  }
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  const dim3 grid((unsigned)lq, (unsigned)hq, (unsigned)b);
  const float scale = 1.0f / sqrtf((float)d);
  attention_query_block<<<grid, 128, lk * sizeof(float), stream>>>(q, k, v, o, (int)hq, (int)hkv, (int)lq, (int)lk, (int)d,
                                                                   (int)causal, scale);
}
