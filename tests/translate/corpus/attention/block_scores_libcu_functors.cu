// A block per (batch, query head, query row): scores of all keys in dynamic shared memory, block
// all-reduces with libcu++ functors (cuda::maximum, cuda::std::plus) through a warp_allreduce template,
// GQA head mapping, causal mask aligned to the end, 1/sqrt(d) by rsqrtf, __expf.
#include <cuda_runtime.h>
#include <cuda/functional>
#include <cuda/std/functional>
#include <stdint.h>

template <typename Op>
__device__ __forceinline__ float warp_allreduce(float v, Op op) {
#pragma unroll
  for (int m = 16; m > 0; m >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, m));
  return v;
}

template <int kThreads, typename Op>
__device__ float block_allreduce(float v, Op op, float identity, float* red) {
  constexpr int kWarps = kThreads / 32;
  v = warp_allreduce(v, op);
  if ((threadIdx.x & 31) == 0) red[threadIdx.x >> 5] = v;
  __syncthreads();
  float r = identity;
#pragma unroll
  for (int w = 0; w < kWarps; ++w) r = op(r, red[w]);
  __syncthreads();
  return r;
}

template <int kThreads>
__global__ void attention_row(const float* __restrict__ q, const float* __restrict__ k, const float* __restrict__ v,
                              float* __restrict__ o, int hq, int hkv, int lq, int lk, int d, int causal) {
  extern __shared__ float scores[];  // lk
  __shared__ float red[kThreads / 32];
  const int qi = blockIdx.x, h = blockIdx.y, b = blockIdx.z;
  const int kvh = h / (hq / hkv);
  const float* qr = q + (((size_t)b * hq + h) * lq + qi) * d;
  const float* kb = k + ((size_t)b * hkv + kvh) * lk * d;
  const float* vb = v + ((size_t)b * hkv + kvh) * lk * d;
  const float scale = rsqrtf((float)d);
  const int last = causal ? qi + (lk - lq) : lk - 1;
  float m = -INFINITY;
  for (int j = threadIdx.x; j < lk; j += kThreads) {
    float s = -INFINITY;
    if (j <= last) {
      s = 0.f;
      for (int e = 0; e < d; ++e) s = fmaf(qr[e], kb[(size_t)j * d + e], s);
      s *= scale;
    }
    scores[j] = s;
    m = fmaxf(m, s);
  }
  m = block_allreduce<kThreads>(m, cuda::maximum<float>{}, -INFINITY, red);
  float sum = 0.f;
  for (int j = threadIdx.x; j < lk; j += kThreads) {
    const float p = j <= last ? __expf(scores[j] - m) : 0.f;
    scores[j] = p;
    sum += p;
  }
  sum = block_allreduce<kThreads>(sum, cuda::std::plus<float>{}, 0.f, red);
  const float inv = 1.f / sum;
  float* orow = o + (((size_t)b * hq + h) * lq + qi) * d;
  for (int e = threadIdx.x; e < d; e += kThreads) {
    float acc = 0.f;
    for (int j = 0; j <= last && j < lk; ++j) acc = fmaf(scores[j], vb[(size_t)j * d + e], acc);
    orow[e] = acc * inv;
  }
}

extern "C" void attention(const float* q, const float* k, const float* v, float* o, int64_t b, int64_t hq, int64_t hkv,
                          int64_t lq, int64_t lk, int64_t d, int32_t causal, cudaStream_t stream) {
  constexpr int kThreads = 64;
  const dim3 grid((unsigned)lq, (unsigned)hq, (unsigned)b);
  attention_row<kThreads><<<grid, kThreads, lk * sizeof(float), stream>>>(q, k, v, o, (int)hq, (int)hkv, (int)lq,
                                                                          (int)lk, (int)d, causal);
}
